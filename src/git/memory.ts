/** Memory-backed storage for files that must never reach a disk (decrypted checkouts, credential files). */
import { accessSync, constants, statSync } from 'node:fs';

/** Memory-backed storage (tmpfs) that Linux hosts and containers mount for shared memory. */
const SHM = '/dev/shm';

/**
 * A directory on memory-backed storage for checkouts that will hold plaintext (decrypted SOPS files): `/dev/shm`
 * when it is a writable directory, else undefined (the caller then uses its usual work directory). Files there
 * never reach a disk; containers size it (64 MiB by default in Docker and Kubernetes) — see docs/operator.md.
 */
export function memoryBackedDir(): string | undefined {
  try {
    if (!statSync(SHM).isDirectory()) return undefined;
    accessSync(SHM, constants.W_OK);
    return SHM;
  } catch {
    return undefined;
  }
}
