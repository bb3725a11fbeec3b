/**
 * The typed client of svc's REST API, used by the command-line client (Node) and the web UI (browser): the request
 * and answer types are generated from the server's OpenAPI document (./openapi.gen.ts, `npm run generate`), the
 * requests are sent by openapi-fetch. Each call answers its 2xx body; every other answer (and a 2xx that is not the
 * JSON asked for) becomes the caller's own error, built from the server's `{"error"}` message and the status, so the
 * CLI keeps its exit codes and the UI its ApiError.
 */
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { paths } from './openapi.gen.ts';

/** An answer that is not what was asked for, as the caller's error factory receives it. */
export interface Failure {
  status: number;
  statusText: string;
  /** The server's `{"error"}` message, when the answer carries one. */
  message: string | undefined;
  /** The answer's body, parsed when it is JSON, else its text. */
  body: unknown;
}

export interface SvcClientOptions {
  /** The server's origin (`https://svc.example.com`), or '' for the page's own origin in a browser. */
  baseUrl: string;
  /** Headers of every request (the CLI's API key). */
  headers?: Record<string, string>;
  /** The error thrown for an answer that is not a 2xx with the asked-for body. */
  failure: (failure: Failure) => Error;
  /** The error thrown when no answer came (the server cannot be reached); the fetch error as it is by default. */
  unreachable?: (error: unknown) => Error;
  /** More openapi-fetch middleware (the CLI refuses to send without an API key). */
  middleware?: Middleware[];
}

/** The request options of a call (path and query parameters, body, `parseAs`, `signal`), required when it has some. */
type InitArgs<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** The 2xx body of an openapi-fetch answer. */
type Ok<Result> = Result extends { data: infer Data; error?: never } ? Data : never;

/** The operation `Method` on `Path` as openapi-fetch's types take it. */
type Operation<Path extends keyof paths, Method extends HttpMethod> =
  paths[Path][Method] extends Record<string | number, unknown> ? paths[Path][Method] : never;

/** One HTTP method of the client: the path as the document spells it, its options, its 2xx body. */
type Call<Method extends HttpMethod> = <
  Path extends PathsWithMethod<paths, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  path: Path,
  ...init: InitArgs<Init>
) => Promise<Ok<FetchResponse<Operation<Path, Method>, Init, MediaType>>>;

/** The methods svc's API serves. */
export interface SvcClient {
  GET: Call<'get'>;
  POST: Call<'post'>;
  PUT: Call<'put'>;
  PATCH: Call<'patch'>;
  DELETE: Call<'delete'>;
  /**
   * The same calls answering openapi-fetch's `{ data, response }`, for the answers whose headers matter (the log
   * stream's pod); failures are the caller's errors all the same.
   */
  raw: Client<paths>;
}

/** `text` parsed as JSON, or the text itself when it is not JSON. */
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Whether `response` is an answer openapi-fetch will not parse: 204, or an empty body. */
function isEmpty(response: Response): boolean {
  return response.status === 204 || response.headers.get('content-length') === '0';
}

/** The middleware that turns every answer but a wanted 2xx, and every failure to get one, into the caller's error. */
function failures(options: SvcClientOptions): Middleware {
  return {
    async onResponse({ response, options: { parseAs } }) {
      const json = /[/+]json\b/.test(response.headers.get('content-type') ?? '');
      if (response.ok && (parseAs !== 'json' || json || isEmpty(response))) return undefined;
      const body = parseBody(await response.text());
      const error = (body as { error?: unknown } | null)?.error;
      throw options.failure({
        status: response.status,
        statusText: response.statusText,
        message: typeof error === 'string' ? error : undefined,
        body,
      });
    },
    onError({ error, request }) {
      // An abort (Ctrl-C, a deadline) is the caller's own doing: it stays what it is.
      if (request.signal.aborted || !options.unreachable) return undefined;
      return options.unreachable(error);
    },
  };
}

/** A client of the server at `options.baseUrl`. */
export function createSvcClient(options: SvcClientOptions): SvcClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { accept: 'application/json', ...options.headers },
    // The global fetch as it is at each call (openapi-fetch would keep the one there when the client was made).
    fetch: (request: Request) => globalThis.fetch(request),
  });
  client.use(failures(options), ...(options.middleware ?? []));
  const call =
    (method: 'get' | 'post' | 'put' | 'patch' | 'delete') =>
    async (path: string, init?: object): Promise<unknown> =>
      (await client.request(method as 'get', path as never, init as never)).data;
  return {
    GET: call('get'),
    POST: call('post'),
    PUT: call('put'),
    PATCH: call('patch'),
    DELETE: call('delete'),
    raw: client,
  } as SvcClient;
}
