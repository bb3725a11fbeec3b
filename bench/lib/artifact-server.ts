/**
 * The benchmark fixture as a Flux artifact: a tar.gz of {@link fixtureFiles} served from a loopback HTTP server the
 * benchmark runs itself, standing in for source-controller (which does not build from the module proxy here, see
 * bench/README.md). Each `publish(marker)` serves a new archive and answers what an ExternalArtifact's
 * `status.artifact` carries: URL, `sha256:` digest, revision, size.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from '../../test/harness/process.ts';
import { fixtureFiles } from './fixture.ts';

/** What an ExternalArtifact's status.artifact holds for one published archive. */
export interface PublishedArtifact {
  url: string;
  digest: string;
  revision: string;
  path: string;
  size: number;
}

/** A running artifact server. */
export interface ArtifactServer {
  /** Packs the fixture with `marker` (as {@link fixtureFiles} takes it) and serves it under a new path. */
  publish(marker: string): PublishedArtifact;
  /** Requests answered so far (one per Kustomization fetch). */
  requests(): number;
  stop(): Promise<void>;
}

/** Starts the server on 127.0.0.1 and an ephemeral port. */
export async function startArtifactServer(): Promise<ArtifactServer> {
  const dir = makeTempDir('bench-artifacts');
  const archives = new Map<string, Buffer>();
  let served = 0;
  const server = createServer((req, res) => {
    const body = archives.get(req.url ?? '');
    served++;
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    publish(marker) {
      const src = join(dir, marker);
      mkdirSync(src, { recursive: true });
      for (const [name, text] of Object.entries(fixtureFiles(marker))) writeFileSync(join(src, name), text);
      const file = join(dir, `${marker}.tar.gz`);
      execFileSync('tar', ['-czf', file, '-C', src, '.']);
      const body = readFileSync(file);
      const hex = createHash('sha256').update(body).digest('hex');
      const path = `/fixture/${hex}.tar.gz`;
      archives.set(path, body);
      return {
        url: `http://127.0.0.1:${port}${path}`,
        digest: `sha256:${hex}`,
        revision: `${marker}@sha256:${hex}`,
        path: path.slice(1),
        size: body.length,
      };
    },
    requests: () => served,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      removeTempDir(dir);
    },
  };
}
