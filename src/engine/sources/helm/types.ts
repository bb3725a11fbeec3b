/** Shapes shared by the HelmChart driver's parts. */
import { UpstreamError } from '../../../core/errors.ts';
import type { SourceAccess } from '../../../core/repository.ts';
import type { NetworkErrorClass } from '../../../net/errors.ts';

/** One version of a chart as its repository lists it. */
export interface ChartVersion {
  version: string;
  /** Archive URLs (HTTP repositories; relative to the repository URL or absolute). */
  urls: string[];
  /** `sha256:<hex>` of the archive (HTTP) or manifest (OCI), when the listing gives it. */
  digest?: string;
}

/** Where a chart is, for whom, and how its credentials are found (asked when something is fetched). */
export interface ChartLocation {
  /** The org namespace the chart is fetched for. */
  orgNamespace: string;
  /** What caches are kept per: the org, and the repository an App names (if it names one). */
  scope: string;
  repoURL: string;
  chart: string;
  access: () => Promise<SourceAccess | undefined>;
}

/** What kind of failure fetching a chart met (src/net's classes plus the repository's answers). */
export type ChartFetchErrorClass = NetworkErrorClass | 'auth' | 'permission' | 'notfound' | 'provider';

/** A chart repository or registry could not be read. Refused credentials and missing charts wait; the rest retries. */
export class ChartFetchError extends UpstreamError {
  readonly errorClass: ChartFetchErrorClass;
  constructor(errorClass: ChartFetchErrorClass, message: string, options: { cause?: unknown } = {}) {
    const waits = errorClass === 'auth' || errorClass === 'permission' || errorClass === 'notfound';
    super(message, { ...options, retry: waits || errorClass === 'refused' ? 'wait' : 'retry' });
    this.errorClass = errorClass;
  }
}
