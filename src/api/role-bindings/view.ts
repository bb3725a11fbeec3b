/** How role bindings look in the API. */
import type { Static } from 'typebox';
import type { RoleBinding as Binding } from '../../store/role-bindings.ts';
import type { RoleBinding } from './contract.ts';

type View = Static<typeof RoleBinding>;

export function bindingView(b: Binding): View {
  return {
    id: b.id,
    subject_type: b.subjectType,
    subject_id: b.subjectId,
    scope: b.scope as View['scope'],
    scope_id: b.scopeId,
    level: b.level as View['level'],
    created_at: b.createdAt,
  };
}
