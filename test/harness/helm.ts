import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { binary } from './paths.ts';

/**
 * Runs the pinned helm (scripts/build-binaries.sh) with `args`, against the kubeconfig at `kubeconfigPath` when
 * given (its caches and config beside that file, so runs never share ~/.cache/helm); resolves with its output,
 * rejects on a non-zero exit with stderr in the message (and on `error.stderr`).
 */
export function helm(
  args: readonly string[],
  options: { kubeconfigPath?: string; input?: string } = {},
): Promise<{ stdout: string; stderr: string }> {
  const home = options.kubeconfigPath ? join(dirname(options.kubeconfigPath), 'helm') : undefined;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    ...(options.kubeconfigPath ? { KUBECONFIG: options.kubeconfigPath } : {}),
    ...(home
      ? {
          HELM_CACHE_HOME: join(home, 'cache'),
          HELM_CONFIG_HOME: join(home, 'config'),
          HELM_DATA_HOME: join(home, 'data'),
        }
      : {}),
  };
  return new Promise((resolveRun, reject) => {
    const child = execFile(binary('helm'), args, { env, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error)
        reject(
          Object.assign(new Error(`helm ${args.join(' ')} failed: ${stderr.trim() || error.message}`), { stderr }),
        );
      else resolveRun({ stdout, stderr });
    });
    child.stdin?.end(options.input ?? '');
  });
}
