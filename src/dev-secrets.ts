/**
 * Development secrets (`svc start` or `svc server` without AUTH_SECRET / SVC_CREDENTIALS_KEY): generated once and
 * kept in `<dataDir>/dev-secrets.json` (mode 0600) so sessions and sealed credentials survive a restart, and a
 * `svc server` on the data directory `svc start` made opens them. Never used in production mode (see config.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DevSecrets } from './config.ts';

/** Reads the dev secrets kept under `dataDir`, creating them on first use. */
export function ensureDevSecrets(dataDir: string): DevSecrets {
  const file = join(dataDir, 'dev-secrets.json');
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>;
    if (parsed.authSecret && parsed.credentialsKey)
      return { authSecret: parsed.authSecret, credentialsKey: parsed.credentialsKey };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secrets: DevSecrets = {
    authSecret: randomBytes(32).toString('base64url'),
    credentialsKey: randomBytes(32).toString('base64'),
  };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
