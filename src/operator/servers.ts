/** The operator's small HTTP listeners: Prometheus metrics and the /healthz and /readyz probes. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from '../config.ts';
import type { OperatorMetrics } from './metrics.ts';

/** Serves `GET /metrics`. */
export function metricsServer(metrics: OperatorMetrics): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
}

/** Serves `/healthz` (the process runs) and `/readyz` (`ready()` is true). */
export function probeServer(ready: () => boolean): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    else if (path === '/readyz') {
      const ok = ready();
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain' }).end(ok ? 'ok' : 'not ready');
    } else res.writeHead(404).end();
  });
}

/** Listens on `addr` (host '' = all interfaces; port 0 = any) and resolves with the bound port. */
export function listen(server: Server, addr: ListenAddress): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr.port, addr.host || undefined, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes a server, dropping open connections. */
export function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
