/**
 * The connection fields of a registry, checked beyond the document (./contract.ts states the form of each field):
 * a host whose addresses the outbound policy allows (SSRF, src/net); plain http (`insecure`) only outside production
 * mode; a user name and a password together or not at all. Each is a 422: the document cannot state them (they
 * depend on the server's settings and DNS, or on two fields at once).
 */
import type { Config } from '../../config.ts';
import { UnprocessableError } from '../../core/errors.ts';
import { isRegistryHost } from '../../core/image-ref.ts';
import { checkOutboundHost } from '../../net/outbound.ts';
import type { RegistryEndpoint } from '../../registry/index.ts';

/** The connection fields of a registry, as sent (create, test) or merged with the stored ones (update). */
export interface ConnectionInput {
  host: string;
  insecure?: boolean | undefined;
  ca?: string | null | undefined;
  username?: string | null | undefined;
  password?: string | null | undefined;
}

/** Largest CA bundle accepted. */
export const MAX_CA_BYTES = 64 * 1024;

/**
 * Checks the connection fields and resolves the host under the outbound policy; returns the endpoint the registry
 * client will use. UnprocessableError (422) naming the first problem.
 */
export async function checkConnection(input: ConnectionInput, config: Config): Promise<RegistryEndpoint> {
  const { host } = input;
  if (!isRegistryHost(host)) {
    throw new UnprocessableError(
      `host "${host}" must be a registry host such as registry.example.com or 10.0.0.5:5000 (no scheme, no path)`,
    );
  }
  if (input.insecure === true && config.outbound.requireHttps) {
    throw new UnprocessableError('insecure (plain http) registries are refused in production mode');
  }
  const ca = input.ca ?? undefined;
  if (ca !== undefined && (!ca.includes('-----BEGIN CERTIFICATE-----') || Buffer.byteLength(ca) > MAX_CA_BYTES)) {
    throw new UnprocessableError('ca must be PEM certificates (-----BEGIN CERTIFICATE-----), at most 64 KiB');
  }
  const username = input.username ?? undefined;
  const password = input.password ?? undefined;
  if ((username === undefined) !== (password === undefined)) {
    throw new UnprocessableError('username and password are set together or not at all');
  }
  const name = host.replace(/:\d+$/, '');
  try {
    await checkOutboundHost(name, config.outbound);
  } catch (err) {
    if (err instanceof UnprocessableError) throw err;
    throw new UnprocessableError(`host "${name}" cannot be resolved`, { cause: err });
  }
  return {
    host,
    insecure: input.insecure === true,
    ...(ca !== undefined ? { ca } : {}),
    ...(username !== undefined ? { credentials: { username, password: password ?? '' } } : {}),
  };
}
