/**
 * The bodies of the registry routes, checked beyond their JSON schemas: a DNS-1123 name; a host (`name[:port]`, no
 * scheme or path) whose addresses the outbound policy allows (SSRF, src/net); plain http (`insecure`) only outside
 * production mode; a PEM CA certificate; a user name and a password together or not at all.
 */
import type { Config } from '../../config.ts';
import { InputError } from '../../core/errors.ts';
import { isRegistryHost } from '../../core/image-ref.ts';
import { dnsLabelProblem } from '../../core/names.ts';
import { checkOutboundHost } from '../../net/outbound.ts';
import type { RegistryEndpoint } from '../../registry/index.ts';

/** The connection fields of a registry, as sent (create, test) or merged with the stored ones (update). */
export interface ConnectionInput {
  host: string;
  insecure?: boolean;
  ca?: string | null;
  username?: string | null;
  password?: string | null;
}

/** Largest CA bundle accepted. */
export const MAX_CA_BYTES = 64 * 1024;

/** Throws InputError unless `name` is a DNS-1123 label. */
export function checkRegistryName(name: unknown): string {
  const problem = dnsLabelProblem('name', name);
  if (problem) throw new InputError(problem);
  return name as string;
}

/**
 * Checks the connection fields and resolves the host under the outbound policy; returns the endpoint the registry
 * client will use. InputError (400) naming the first problem.
 */
export async function checkConnection(input: ConnectionInput, config: Config): Promise<RegistryEndpoint> {
  const { host } = input;
  if (!isRegistryHost(host)) {
    throw new InputError(
      `host "${host}" must be a registry host such as registry.example.com or 10.0.0.5:5000 (no scheme, no path)`,
    );
  }
  if (input.insecure === true && config.outbound.requireHttps) {
    throw new InputError('insecure (plain http) registries are refused in production mode');
  }
  const ca = input.ca ?? undefined;
  if (ca !== undefined && (!ca.includes('-----BEGIN CERTIFICATE-----') || Buffer.byteLength(ca) > MAX_CA_BYTES)) {
    throw new InputError('ca must be PEM certificates (-----BEGIN CERTIFICATE-----), at most 64 KiB');
  }
  const username = input.username ?? undefined;
  const password = input.password ?? undefined;
  if ((username === undefined) !== (password === undefined)) {
    throw new InputError('username and password are set together or not at all');
  }
  const name = host.replace(/:\d+$/, '');
  try {
    await checkOutboundHost(name, config.outbound);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`host "${name}" cannot be resolved`, { cause: err });
  }
  return {
    host,
    insecure: input.insecure === true,
    ...(ca !== undefined ? { ca } : {}),
    ...(username !== undefined ? { credentials: { username, password: password ?? '' } } : {}),
  };
}
