/**
 * cert-manager (cert-manager.io): a Certificate is Healthy once `Ready`, Progressing while `Issuing=True` (a first
 * issuance or a renewal under way), Degraded when not Ready and not issuing (the issuance failed, or the certificate
 * expired or does not match its secret). Issuers answer `Ready`; a CertificateRequest follows the generic Ready rules.
 */
import { readyHealth, readyOrDegraded } from './generic.ts';
import { condition, degraded, type Health, type LiveObject, progressing, said } from './status.ts';

const CONTROLLER = 'cert-manager';

/** Health of a live cert-manager.io/v1 Certificate. */
export function certificateHealth(obj: LiveObject): Health {
  const ready = condition(obj, 'Ready');
  if (ready?.status === 'False' && !obj.metadata?.deletionTimestamp) {
    const issuing = condition(obj, 'Issuing');
    if (issuing?.status === 'True') return progressing(`issuing, ${said(issuing, 'in progress')}`);
    return degraded(said(issuing?.status === 'False' ? issuing : ready, 'not ready'));
  }
  return readyHealth(obj, CONTROLLER);
}

/** Health of a live cert-manager.io/v1 Issuer or ClusterIssuer. */
export function issuerHealth(obj: LiveObject): Health {
  return readyOrDegraded(obj, CONTROLLER);
}

/** Health of a live cert-manager.io/v1 CertificateRequest. */
export function certificateRequestHealth(obj: LiveObject): Health {
  return readyHealth(obj, CONTROLLER);
}
