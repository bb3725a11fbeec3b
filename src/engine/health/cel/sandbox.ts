/**
 * The CEL sandbox: custom health checks run in a worker thread with a cost limit, so a hostile or careless
 * expression cannot stall the process that evaluates it (the operator). One evaluation at a time; each gets
 * `timeoutMs` of the worker thread's CPU time (measured with `worker.cpuUsage()`, so a busy machine does not make a
 * cheap check look expensive) and the worker at most `memoryMb` of heap. An evaluation past either limit is cut
 * off: the worker is terminated (a new one starts for the next evaluation), the answer is Unknown, and the check is
 * refused from then on in this process (its answer stays Unknown, naming the cut-off) until its definition changes,
 * so one bad check costs one cut-off, not one per object and reconcile. An evaluation the machine gives no CPU for
 * `wallLimitMs` is ended too, without refusing its check.
 */
import { Worker } from 'node:worker_threads';
import type { Health } from '../status.ts';
import type { HealthCheckSpec } from './compile.ts';
import type { WorkerRequest } from './worker.ts';

/** Limits of a sandbox. */
export interface SandboxOptions {
  /** CPU time of the worker one evaluation may take (default 250 ms). */
  timeoutMs?: number;
  /** Wall-clock time after which an evaluation is ended without refusing its check (default 10 s). */
  wallLimitMs?: number;
  /** Old-generation heap of the worker (default 64 MiB). */
  memoryMb?: number;
}

interface Job {
  check: HealthCheckSpec;
  key: string;
  object: Record<string, unknown>;
  resolve: (h: Health) => void;
}

/** How often a running evaluation's CPU time is read. */
const POLL_MS = 20;

/** Most cut-off checks remembered (a churn of bad checks cannot grow memory without bound). */
const MAX_TRIPPED = 1000;

const keyOf = (c: HealthCheckSpec): string =>
  JSON.stringify([c.apiVersion, c.kind, c.inProgress ?? '', c.failed ?? '', c.current]);

/** Evaluates custom checks in a worker thread, one at a time, each under the cost limit. */
export class CelSandbox {
  readonly #timeoutMs: number;
  readonly #wallLimitMs: number;
  readonly #memoryMb: number;
  readonly #queue: Job[] = [];
  readonly #tripped = new Map<string, string>();
  #worker: Worker | undefined;
  #ready: Promise<void> | undefined;
  #running: { job: Job; id: number; timer: NodeJS.Timeout } | undefined;
  #nextId = 1;
  #stopped = false;

  constructor(options: SandboxOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 250;
    this.#wallLimitMs = options.wallLimitMs ?? 10_000;
    this.#memoryMb = options.memoryMb ?? 64;
  }

  /** Health of `object` by `check`; never rejects. */
  evaluate(check: HealthCheckSpec, object: Record<string, unknown>): Promise<Health> {
    const key = keyOf(check);
    const tripped = this.#tripped.get(key);
    if (tripped) return Promise.resolve({ status: 'Unknown', message: tripped });
    if (this.#stopped)
      return Promise.resolve({ status: 'Unknown', message: 'custom check not evaluated: shutting down' });
    return new Promise((resolve) => {
      this.#queue.push({ check, key, object, resolve });
      this.#pump();
    });
  }

  /** True when `check` was cut off (for tests and logs). */
  isTripped(check: HealthCheckSpec): boolean {
    return this.#tripped.has(keyOf(check));
  }

  /** Terminates the worker; pending evaluations answer Unknown. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const job of this.#queue.splice(0))
      job.resolve({ status: 'Unknown', message: 'custom check not evaluated: shutting down' });
    if (this.#running) {
      clearTimeout(this.#running.timer);
      this.#running.job.resolve({ status: 'Unknown', message: 'custom check not evaluated: shutting down' });
      this.#running = undefined;
    }
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  #pump(): void {
    if (this.#running || this.#stopped) return;
    const job = this.#queue.shift();
    if (!job) return;
    const tripped = this.#tripped.get(job.key);
    if (tripped) {
      job.resolve({ status: 'Unknown', message: tripped });
      this.#pump();
      return;
    }
    const worker = this.#start();
    const id = this.#nextId++;
    const started = Date.now();
    this.#running = { job, id, timer: setTimeout(() => undefined, 0) };
    void this.#ready
      ?.then(() => worker.cpuUsage())
      .then((base) => {
        if (this.#worker !== worker || this.#running?.id !== id) return;
        const req: WorkerRequest = { id, check: job.check, object: job.object };
        worker.postMessage(req);
        this.#watch(worker, id, base.user + base.system, started);
      })
      .catch(() => {
        if (this.#running?.id === id) this.#cutOff('was not evaluated: its worker did not start', false);
      });
  }

  /** Checks the running evaluation's CPU time every few ms; cuts it off past the limit (or the wall-clock backstop). */
  #watch(worker: Worker, id: number, baseMicros: number, started: number): void {
    const running = this.#running;
    if (!running || running.id !== id) return;
    running.timer = setTimeout(async () => {
      if (this.#running?.id !== id) return;
      const usage = await worker.cpuUsage().catch(() => undefined);
      if (this.#running?.id !== id) return;
      const cpuMs = usage ? (usage.user + usage.system - baseMicros) / 1000 : 0;
      if (cpuMs > this.#timeoutMs) this.#cutOff(`exceeded its cost limit (${this.#timeoutMs} ms of CPU)`);
      else if (Date.now() - started > this.#wallLimitMs) this.#cutOff('was not evaluated in time', false);
      else this.#watch(worker, id, baseMicros, started);
    }, POLL_MS);
  }

  /** The worker, started (and awaited ready) when there is none. */
  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./worker.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.#memoryMb, maxYoungGenerationSizeMb: 8, stackSizeMb: 4 },
    });
    worker.unref();
    this.#worker = worker;
    this.#ready = new Promise((resolve) => {
      worker.on('message', (msg: { ready?: boolean; id?: number; health?: Health }) => {
        if (msg.ready) {
          resolve();
          return;
        }
        const running = this.#running;
        if (!running || running.id !== msg.id || !msg.health) return;
        clearTimeout(running.timer);
        this.#running = undefined;
        running.job.resolve(msg.health);
        this.#pump();
      });
    });
    worker.on('error', (err) => this.#lost(worker, `failed: ${err.message}`));
    worker.on('exit', () => this.#lost(worker, 'stopped its worker'));
    return worker;
  }

  /** The worker died (out of memory, crashed): the evaluation it ran is cut off. */
  #lost(worker: Worker, what: string): void {
    if (this.#worker !== worker) return;
    if (this.#running) this.#cutOff(what);
    else this.#worker = undefined;
  }

  /**
   * Ends the running evaluation: terminates the worker, goes on with the next; with `trip` (the expression's own
   * fault) its check is refused from now on.
   */
  #cutOff(why: string, trip = true): void {
    const running = this.#running;
    if (!running) return;
    clearTimeout(running.timer);
    this.#running = undefined;
    const { check, key } = running.job;
    const what = `custom check for ${check.apiVersion} ${check.kind}`;
    const message = trip ? `${what} cut off: it ${why}; fix the expression` : `${what} ${why}`;
    if (trip) {
      if (this.#tripped.size >= MAX_TRIPPED) this.#tripped.clear();
      this.#tripped.set(key, message);
    }
    running.job.resolve({ status: 'Unknown', message });
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.terminate();
    this.#pump();
  }
}
