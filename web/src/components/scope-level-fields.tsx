/**
 * Where and how much a role binding grants: scope (org, cluster, deployment), its id and the level (read, sync,
 * admin), as the Access and team pages ask it.
 */
import type { BindingInput } from '../api/access.ts';
import { Field, Input, Select } from './ui/field.tsx';

/** The form's choice: the scope and level of POST /role-bindings, and the scope id as typed. */
export interface ScopeLevel {
  scope: BindingInput['scope'];
  scope_id: string;
  level: BindingInput['level'];
}

/** What a binding grants: POST /role-bindings's body without its subject (each scope with its own scope_id rule). */
export type ScopeLevelBody = BindingInput extends infer B
  ? B extends unknown
    ? Omit<B, 'subject_type' | 'subject_id'>
    : never
  : never;

/** The body fields of POST /role-bindings for a choice (no scope_id at org scope; the server checks the pairing). */
export function scopeLevelBody(v: ScopeLevel): ScopeLevelBody {
  return { scope: v.scope, ...(v.scope === 'org' ? {} : { scope_id: v.scope_id }), level: v.level } as ScopeLevelBody;
}

export function ScopeLevelFields({ value, onChange }: { value: ScopeLevel; onChange: (v: ScopeLevel) => void }) {
  const set = (k: keyof ScopeLevel) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    // The selects offer only the server's scopes and levels.
    onChange({ ...value, [k]: e.target.value } as ScopeLevel);
  return (
    <>
      <Field label="Scope">
        {(p) => (
          <Select {...p} value={value.scope} onChange={set('scope')}>
            <option>org</option>
            <option>cluster</option>
            <option>deployment</option>
          </Select>
        )}
      </Field>
      <Field
        label="Scope id"
        hint={
          value.scope === 'deployment' ? '<cluster>/<namespace>' : value.scope === 'cluster' ? 'cluster name' : 'none'
        }
      >
        {(p) => <Input {...p} disabled={value.scope === 'org'} value={value.scope_id} onChange={set('scope_id')} />}
      </Field>
      <Field label="Level">
        {(p) => (
          <Select {...p} value={value.level} onChange={set('level')}>
            <option>read</option>
            <option>sync</option>
            <option>admin</option>
          </Select>
        )}
      </Field>
    </>
  );
}
