/**
 * `npm run cluster`: starts a local management control plane (etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, kwok with one fake node, the App CRD) for a person trying svc, prints the line to export, and
 * stops everything cleanly on Ctrl-C. Binaries are built on first use by scripts/build-binaries.sh (cached), as for
 * `npm start`, which starts the same plane by itself when no management cluster is configured (scripts/start.ts).
 */
import { kubectlPath } from '../test/harness/kube.ts';
import { startLocalPlane } from './local-plane.ts';

const say = (line: string) => process.stderr.write(`${line}\n`);

const started = performance.now();
const plane = await startLocalPlane('cluster', say);
say(`control plane ready in ${((performance.now() - started) / 1000).toFixed(1)} s at ${plane.serverURL}`);
say('in another terminal:');
process.stdout.write(`export SVC_MGMT_KUBECONFIG=${plane.kubeconfigPath}\n`);
say(`kubectl: ${kubectlPath()} --kubeconfig "$SVC_MGMT_KUBECONFIG" get nodes`);
say('Ctrl-C stops the control plane and removes its files.');

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  say(`\n${signal}: stopping...`);
  await plane.stop();
  say('stopped.');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
// Keep the process alive until a signal arrives.
setInterval(() => {}, 1 << 30);
