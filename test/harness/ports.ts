import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it). A process started right after usually
 * gets it; callers that race with other port users should retry start-up on EADDRINUSE.
 */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('no port from the kernel'));
        return;
      }
      server.close(() => resolvePort(address.port));
    });
  });
}
