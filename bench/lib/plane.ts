/** The control plane every benchmark runs on: the harness's, with its limits raised (see bench/README.md). */
import { type ControlPlane, startControlPlane, type ThroughputOptions } from '../../test/harness/index.ts';

/** What the benchmarks raise; recorded in every result file. */
export const BENCH_THROUGHPUT: ThroughputOptions = {
  qps: 1000,
  burst: 2000,
  maxRequestsInflight: 2000,
  nodePods: 5000,
};

/** Starts a fresh management plane (App CRD installed, one fake node with room for every benchmark Pod). */
export function startBenchPlane(name = 'bench'): Promise<ControlPlane> {
  return startControlPlane({ name, throughput: BENCH_THROUGHPUT });
}
