/** HTTP load on loopback with autocannon (pinned devDependency), keeping every request's latency as a raw sample. */
import autocannon from 'autocannon';
import { summarize } from './stats.ts';

/** One load run: what to request, how many connections, for how long or how many requests. */
export interface RunSpec {
  name: string;
  method: 'GET' | 'POST';
  /** A fixed path, or a path per request (sync: each App once). */
  path: string | (() => string);
  connections: number;
  /** Run for a duration, or send exactly this many requests. */
  amount?: number;
}

/** One autocannon run; keeps its per-request latencies as raw samples. */
export async function load(baseURL: string, key: string, spec: RunSpec, durationSeconds: number) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const nextPath = typeof spec.path === 'function' ? spec.path : undefined;
  const options: autocannon.Options = {
    url: baseURL,
    connections: spec.connections,
    ...(spec.amount ? { amount: spec.amount } : { duration: durationSeconds }),
    headers: { authorization: `Bearer ${key}` },
    requests: [
      {
        method: spec.method,
        path: typeof spec.path === 'string' ? spec.path : '/',
        ...(nextPath ? { setupRequest: (req: autocannon.Request) => ({ ...req, path: nextPath() }) } : {}),
      },
    ],
  };
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error, res) => (error ? reject(error) : resolve(res)));
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(Number(responseTime.toFixed(3)));
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    name: spec.name,
    method: spec.method,
    connections: spec.connections,
    requestsPerSecond: Number((latencies.length / seconds).toFixed(1)),
    latencyMs: summarize(latencies),
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: Number(seconds.toFixed(2)),
    autocannon: { requests: result.requests, latency: result.latency, throughput: result.throughput },
    samples: { latencyMs: latencies },
  };
}
