import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** File paths of a key pair with its certificate (PEM). */
export interface CertPair {
  cert: string;
  key: string;
}

/** Everything a control plane needs, as files in one directory. */
export interface PlaneCerts {
  ca: CertPair;
  serving: CertPair;
  /** Client certificate `CN=svc-test-admin, O=system:masters`. */
  admin: CertPair;
  /** Service-account token signing key (private) and its public key. */
  serviceAccount: { key: string; pub: string };
}

async function openssl(args: string[], cwd: string): Promise<void> {
  await execFileAsync('openssl', args, { cwd });
}

async function ecKey(path: string, cwd: string): Promise<void> {
  // P-256 keys: generated in milliseconds, accepted by Kubernetes for TLS, client certs and service-account tokens.
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path], cwd);
}

/** Options for {@link issueCert}. */
export interface IssueOptions {
  subject: string;
  /** `serverAuth`, `clientAuth` or both. */
  usage: 'server' | 'client';
  /** Subject alternative names, e.g. `IP:127.0.0.1`, `DNS:localhost`. */
  altNames?: string[];
}

/** Issues a certificate signed by `ca` into `<dir>/<name>.crt` / `.key`. */
export async function issueCert(dir: string, ca: CertPair, name: string, options: IssueOptions): Promise<CertPair> {
  const pair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  await ecKey(pair.key, dir);
  const ext = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${options.usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
  ];
  if (options.altNames?.length) ext.push(`subjectAltName=${options.altNames.join(',')}`);
  const extFile = join(dir, `${name}.ext`);
  await writeFile(extFile, `${ext.join('\n')}\n`);
  const csr = join(dir, `${name}.csr`);
  await openssl(['req', '-new', '-key', pair.key, '-subj', options.subject, '-out', csr], dir);
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-days',
      '30',
      '-sha256',
    ].concat(['-extfile', extFile, '-out', pair.cert]),
    dir,
  );
  return pair;
}

/** Creates a self-signed CA in `<dir>/<name>.crt` / `.key`. */
export async function createCA(dir: string, name = 'ca'): Promise<CertPair> {
  const pair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  await ecKey(pair.key, dir);
  await openssl(
    ['req', '-x509', '-new', '-key', pair.key, '-subj', `/CN=svc-test-${name}`, '-days', '30', '-sha256'].concat([
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
      '-out',
      pair.cert,
    ]),
    dir,
  );
  return pair;
}

/** Serving names of a local apiserver: loopback plus the in-cluster names of the `kubernetes` Service. */
const apiserverAltNames = [
  'IP:127.0.0.1',
  'DNS:localhost',
  'DNS:kubernetes',
  'DNS:kubernetes.default',
  'DNS:kubernetes.default.svc',
  'DNS:kubernetes.default.svc.cluster.local',
];

/** Generates the CA, apiserver serving cert, admin client cert and service-account key pair for one plane. */
export async function createPlaneCerts(dir: string): Promise<PlaneCerts> {
  const ca = await createCA(dir);
  const sa = { key: join(dir, 'sa.key'), pub: join(dir, 'sa.pub') };
  const [serving, admin] = await Promise.all([
    issueCert(dir, ca, 'apiserver', { subject: '/CN=kube-apiserver', usage: 'server', altNames: apiserverAltNames }),
    issueCert(dir, ca, 'admin', { subject: '/O=system:masters/CN=svc-test-admin', usage: 'client' }),
    ecKey(sa.key, dir).then(() => openssl(['pkey', '-in', sa.key, '-pubout', '-out', sa.pub], dir)),
  ]);
  return { ca, serving, admin, serviceAccount: sa };
}

/** Reads a PEM file as text. */
export function readPem(path: string): Promise<string> {
  return readFile(path, 'utf8');
}

/**
 * A fresh CA and a serving certificate for 127.0.0.1 and localhost, in `dir`: what a loopback TLS peer of the
 * harness (git server, chart repository) serves with, and the CA (PEM) its clients trust.
 */
export async function loopbackServing(
  dir: string,
  name: string,
): Promise<{ key: Buffer; cert: Buffer; caPEM: string }> {
  const ca = await createCA(dir);
  const serving = await issueCert(dir, ca, name, {
    subject: `/CN=svc-test-${name}`,
    usage: 'server',
    altNames: ['IP:127.0.0.1', 'DNS:localhost'],
  });
  return {
    key: await readFile(serving.key),
    cert: await readFile(serving.cert),
    caPEM: await readFile(ca.cert, 'utf8'),
  };
}
