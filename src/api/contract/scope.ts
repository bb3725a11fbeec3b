/**
 * The scope a permission, binding or API key applies to, as request bodies carry it: `scope` (org, cluster or
 * deployment) with its `scope_id` ('' for org, a cluster name, or `<cluster>/<namespace>` with cluster '' for the
 * management cluster). One variant per scope, so the document states what each scope takes.
 */
import { type TProperties, Type } from 'typebox';
import { DNS1123_LABEL_MAX } from '../../core/names.ts';
import { DnsLabel, LABEL } from './schema.ts';

/** `<cluster>/<namespace>`: the deployment scope id (cluster empty = the management cluster). */
export const DeploymentScopeId = Type.String({
  pattern: `^(${LABEL})?/${LABEL}$`,
  maxLength: 2 * DNS1123_LABEL_MAX + 1,
  description: '<cluster>/<namespace>; cluster empty for the management cluster',
});

/**
 * `fields` plus a scope: one object variant per scope. `scopeRequired: false` lets the org variant leave `scope`
 * out (org is the default).
 */
export function withScope<P extends TProperties>(fields: P, options: { scopeRequired: boolean; description?: string }) {
  const closed = { additionalProperties: false } as const;
  const orgScope = Type.Literal('org', { description: 'the whole organization' });
  return Type.Union(
    [
      Type.Object(
        {
          ...fields,
          scope: options.scopeRequired ? orgScope : Type.Optional(orgScope),
          scope_id: Type.Optional(Type.String({ maxLength: 0, description: 'empty for scope org' })),
        },
        closed,
      ),
      Type.Object(
        { ...fields, scope: Type.Literal('cluster'), scope_id: DnsLabel('a registered cluster name') },
        closed,
      ),
      Type.Object({ ...fields, scope: Type.Literal('deployment'), scope_id: DeploymentScopeId }, closed),
    ],
    options.description ? { description: options.description } : {},
  );
}
