/**
 * A server-sent-events reader for tests and benchmarks: opens a stream with fetch, parses frames as the
 * EventSource standard does (id, event, data lines, comments), and lets the caller wait for an event by predicate.
 */

/** One received event; `comment` frames are heartbeats (`: …`). */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
  /** When it was parsed (performance.now()). */
  at: number;
}

export interface SseStream {
  status: number;
  /** Every event so far, in order. */
  events: SseEvent[];
  /** Heartbeat comments received. */
  comments: number;
  /** Resolves with the first event (past or future) matching `match`; rejects when the stream ends first. */
  next(match: (e: SseEvent) => boolean, what?: string, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens `url` as an event stream with `headers`; resolves once the answer's headers arrived. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<{ match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }>();
  let endedResolve: () => void = () => {};
  const ended = new Promise<void>((r) => {
    endedResolve = r;
  });
  let finished = false;
  const stream: SseStream = {
    status: res.status,
    events,
    comments: 0,
    ended,
    close: () => abort.abort(),
    next(match, what = 'event', timeoutMs = 60_000) {
      const past = events.find(match);
      if (past) return Promise.resolve(past);
      if (finished) return Promise.reject(new Error(`stream ended before ${what}`));
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve };
        waiters.add(waiter);
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no ${what} within ${timeoutMs} ms; got ${events.map((e) => e.event).join(',')}`));
        }, timeoutMs);
        waiter.resolve = (e) => {
          clearTimeout(timer);
          resolve(e);
        };
        void ended.then(() => {
          if (!waiters.has(waiter)) return;
          clearTimeout(timer);
          reject(new Error(`stream ended before ${what}`));
        });
      });
    },
  };
  if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    finished = true;
    endedResolve();
    return stream;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    let current: { id?: string; event?: string; data: string[] } = { data: [] };
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl = buffer.indexOf('\n');
        while (nl !== -1) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          nl = buffer.indexOf('\n');
          if (line === '') {
            if (current.data.length > 0 || current.event) {
              const e: SseEvent = {
                id: current.id,
                event: current.event ?? 'message',
                data: current.data.join('\n'),
                at: performance.now(),
              };
              events.push(e);
              for (const w of [...waiters]) {
                if (w.match(e)) {
                  waiters.delete(w);
                  w.resolve(e);
                }
              }
            }
            current = { data: [] };
          } else if (line.startsWith(':')) {
            stream.comments++;
          } else {
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') current.id = value;
            else if (field === 'event') current.event = value;
            else if (field === 'data') current.data.push(value);
          }
        }
      }
    } catch {
      // Aborted or broken: the stream has ended either way.
    }
    finished = true;
    endedResolve();
  })();
  return stream;
}
