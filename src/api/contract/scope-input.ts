/** Validation of the scope / scope_id pairs callers send (can-i, API keys, role bindings). */
import { InputError } from '../../core/errors.ts';
import { isDnsLabel } from '../../core/names.ts';
import { SCOPES, type Scope } from '../../core/permissions.ts';

/**
 * The scope and its normalised id. org takes '' (anything else is refused), cluster a DNS-1123 cluster name,
 * deployment `<cluster>/<namespace>` where cluster may be '' for the management cluster. Throws InputError.
 */
export function parseScope(scope: string | undefined, scopeId: string | undefined): { scope: Scope; scopeId: string } {
  const s = scope ?? 'org';
  const id = scopeId ?? '';
  if (!(SCOPES as readonly string[]).includes(s)) throw new InputError(`scope must be one of ${SCOPES.join(', ')}`);
  if (s === 'org') {
    if (id !== '') throw new InputError('scope_id must be empty for scope org');
    return { scope: 'org', scopeId: '' };
  }
  if (s === 'cluster') {
    if (!isDnsLabel(id)) throw new InputError('scope_id must be a cluster name (DNS-1123 label) for scope cluster');
    return { scope: 'cluster', scopeId: id };
  }
  const parts = id.split('/');
  const [cluster, namespace] = parts;
  if (parts.length !== 2 || (cluster !== '' && !isDnsLabel(cluster)) || !isDnsLabel(namespace)) {
    throw new InputError('scope_id must be <cluster>/<namespace> for scope deployment (cluster empty = management)');
  }
  return { scope: 'deployment', scopeId: id };
}
