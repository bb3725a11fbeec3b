import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** One request received by the sink. */
export interface SinkRequest {
  at: Date;
  method: string;
  /** Path with query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body as text. */
  body: string;
  /** Body parsed as JSON, when it is JSON. */
  json: unknown;
  /** The status the sink answered (or will answer, while it is slow). */
  status: number;
}

/**
 * A local HTTP endpoint that records every request, playing a chat webhook (Slack, Teams, Google Chat...) or any
 * webhook receiver: it can answer slowly and fail on purpose (a scripted run of statuses, e.g. 500 then 200).
 */
export interface ChatSink {
  /** `http://127.0.0.1:<port>/hook` (any path is accepted). */
  url: string;
  requests: SinkRequest[];
  /** Status code answered from now on (default 200), to exercise delivery failures. */
  respondWith(status: number): void;
  /** The next requests get these statuses, one each, in order; then `respondWith`'s status again. */
  script(statuses: number[]): void;
  /** Answers every request `ms` late from now on (0: at once), to play a slow or hanging receiver. */
  slow(ms: number): void;
  /** Resolves with the first recorded request matching `predicate` (past or future); rejects after `timeoutMs`. */
  waitFor(predicate: (request: SinkRequest) => boolean, timeoutMs?: number): Promise<SinkRequest>;
  stop(): Promise<void>;
}

/** Starts a {@link ChatSink} on 127.0.0.1 (random port). */
export async function startChatSink(): Promise<ChatSink> {
  const requests: SinkRequest[] = [];
  let status = 200;
  let scripted: number[] = [];
  let delayMs = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const answer = scripted.shift() ?? status;
      requests.push({
        at: new Date(),
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
        json,
        status: answer,
      });
      const respond = () => {
        if (res.destroyed) return;
        res
          .writeHead(answer, { 'content-type': 'application/json' })
          .end(answer < 400 ? '{"ok":true}' : '{"ok":false}');
      };
      if (delayMs > 0) setTimeout(respond, delayMs).unref();
      else respond();
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    requests,
    respondWith(code) {
      status = code;
    },
    script(statuses) {
      scripted = [...statuses];
    },
    slow(ms) {
      delayMs = ms;
    },
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = requests.find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`chat sink: no matching request within ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    },
  };
}
