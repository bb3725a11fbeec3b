/**
 * The CEL sandbox's worker thread: evaluates one check against one object per message and answers with its health.
 * It runs apart from the operator's event loop so the sandbox (./sandbox.ts) can cut off an evaluation that runs
 * too long, or whose memory outgrows the worker's limits, by terminating the thread.
 */
import { parentPort } from 'node:worker_threads';
import type { HealthCheckSpec } from './compile.ts';
import { evaluateCheck } from './evaluate.ts';

/** A request of the sandbox. */
export interface WorkerRequest {
  id: number;
  check: HealthCheckSpec;
  object: Record<string, unknown>;
}

parentPort?.on('message', (req: WorkerRequest) => {
  parentPort?.postMessage({ id: req.id, health: evaluateCheck(req.check, req.object) });
});

parentPort?.postMessage({ ready: true });
