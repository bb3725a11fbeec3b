import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Response of {@link request}. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Body as text. */
  text(): string;
  /** First value of a response header (lower-case name). */
  header(name: string): string | undefined;
}

/** Options for {@link request}. */
export interface HttpRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Extra CA (PEM) trusted for https URLs: the harness's own CAs are not in the system store. */
  ca?: string;
  timeoutMs?: number;
}

/**
 * A plain HTTP(S) request that, unlike global fetch, can trust a given CA; used by harness helpers whose peers may
 * serve TLS with a harness-made certificate.
 */
export function request(url: string | URL, options: HttpRequestOptions = {}): Promise<HttpResponse> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolveResponse, reject) => {
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        ...(target.protocol === 'https:' && options.ca ? { ca: options.ca } : {}),
        timeout: options.timeoutMs ?? 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolveResponse({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: () => body.toString(),
            header: (name) => {
              const value = res.headers[name.toLowerCase()];
              return Array.isArray(value) ? value[0] : value;
            },
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${target.href}: timeout`)));
    req.on('error', reject);
    req.end(options.body);
  });
}
