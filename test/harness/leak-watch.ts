/**
 * What the shared plane shows users, for the run's leak check: a `kubectl get --watch` of every Event and every App
 * (its status) in all namespaces, from the global setup to the teardown, each written to a `stream-*.log` file
 * of the leak spool (scanned in chunks by scanLeakSpool). Watching, not listing at the end, because tests delete their
 * namespaces, and the Events and Apps in them, when they finish.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { kubectlPath } from './kube.ts';

/** The running watches; `stop()` ends them and resolves once their output is complete. */
export interface PlaneWatch {
  stop(): Promise<void>;
}

/** Starts the Event and App watches of the plane whose admin kubeconfig is `kubeconfigPath`, into `spoolDir`. */
export function watchPlaneForLeaks(kubeconfigPath: string, spoolDir: string): PlaneWatch {
  // Apps: their status only. The spec is what the test wrote (a Helm value may be a secret on purpose); the status
  // is what svc wrote.
  const resources: Record<string, [resource: string, output: string]> = {
    'plane Events': ['events', '--output=json'],
    'plane App statuses': [
      'apps.cd.svc.space',
      '--output=jsonpath={.metadata.namespace}/{.metadata.name} {.status}{"\\n"}',
    ],
  };
  const children: ChildProcess[] = Object.entries(resources).map(([name, [resource, output]]) => {
    const out = openSync(join(spoolDir, `stream-${name}.log`), 'a', 0o600);
    const child = spawn(
      kubectlPath(),
      [
        '--kubeconfig',
        kubeconfigPath,
        '--cache-dir',
        join(dirname(kubeconfigPath), 'kubectl-cache'),
        'get',
        resource,
        '--all-namespaces',
        '--watch',
        output,
      ],
      { stdio: ['ignore', out, out] },
    );
    closeSync(out);
    return child;
  });
  return {
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
