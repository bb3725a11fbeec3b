/**
 * `npm start`: `svc start` (API, auth component, web UI and operator in one process) with a management cluster, so
 * the first command of a fresh clone does svc's job. With no management cluster configured (SVC_MGMT_KUBECONFIG
 * unset), it starts the local control plane `npm run cluster` starts (scripts/local-plane.ts: binaries built once
 * when missing), points svc at it and says so in its first lines; the plane stops when svc stops (it belongs to
 * this process). SVC_MGMT_KUBECONFIG keeps today's behaviour: svc connects to that cluster and nothing is started;
 * `--no-cluster` runs svc with no cluster at all (every /api/v1/apps route answers 503). Every other argument goes
 * to `svc start` (`npm start -- --sync-period=10s`).
 */
import { fileURLToPath } from 'node:url';
import { kubectlPath } from '../test/harness/kube.ts';
import { startLocalPlane } from './local-plane.ts';

const say = (line: string) => process.stderr.write(`svc: ${line}\n`);

/** What `npm start` does about the management cluster, from its environment and arguments. */
export type ClusterChoice = { kind: 'configured'; kubeconfig: string } | { kind: 'none' } | { kind: 'local' };

/** The choice for `env` and `args` (the arguments after `npm start --`), and the arguments left for `svc start`. */
export function chooseCluster(
  env: Record<string, string | undefined>,
  args: readonly string[],
): { choice: ClusterChoice; svcArgs: string[] } {
  const svcArgs = args.filter((a) => a !== '--no-cluster');
  const configured = env['SVC_MGMT_KUBECONFIG'];
  if (configured) return { choice: { kind: 'configured', kubeconfig: configured }, svcArgs };
  if (svcArgs.length < args.length) return { choice: { kind: 'none' }, svcArgs };
  return { choice: { kind: 'local' }, svcArgs };
}

async function main(): Promise<void> {
  const { choice, svcArgs } = chooseCluster(process.env, process.argv.slice(2));
  if (choice.kind === 'configured') {
    say(`management cluster: ${choice.kubeconfig} (SVC_MGMT_KUBECONFIG)`);
  } else if (choice.kind === 'none') {
    say('--no-cluster: no management cluster; every /api/v1/apps route answers 503');
  } else {
    say('no management cluster configured (SVC_MGMT_KUBECONFIG is unset): starting a local control plane, as');
    say('`npm run cluster` does (etcd, kube-apiserver, controller-manager, scheduler, kwok with one fake node)...');
    const started = performance.now();
    const plane = await startLocalPlane('start', say);
    // svc reads its settings from the environment (src/config.ts), as if the user had exported it.
    process.env['SVC_MGMT_KUBECONFIG'] = plane.kubeconfigPath;
    say(
      `local control plane ready in ${((performance.now() - started) / 1000).toFixed(1)} s at ${plane.serverURL}; ` +
        `svc connects to it (SVC_MGMT_KUBECONFIG=${plane.kubeconfigPath})`,
    );
    say('it stops, with every App on it, when svc stops; set SVC_MGMT_KUBECONFIG to use a cluster of your own');
    say(`kubectl: ${kubectlPath()} --kubeconfig ${plane.kubeconfigPath} get apps -A`);
  }
  // The same process becomes `svc start` (bin/svc.js reads process.argv): one process, so the plane's components
  // are stopped when it exits, whether svc stops on a signal, fails to start or crashes.
  const entry = new URL('../bin/svc.js', import.meta.url);
  process.argv = [process.argv[0] ?? process.execPath, fileURLToPath(entry), 'start', ...svcArgs];
  await import(entry.href);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    say(`could not start: ${err instanceof Error ? err.message : String(err)}`);
    say('set SVC_MGMT_KUBECONFIG to a cluster of your own, or run `npm start -- --no-cluster` to start without one');
    process.exit(1);
  });
}
