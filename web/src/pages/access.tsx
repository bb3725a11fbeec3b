/**
 * Role bindings: who holds which level (read, sync, admin) at which scope (GET/POST/DELETE /role-bindings); and a
 * can-i check of the signed-in user's own permissions.
 */
import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { type BindingInput, useBind, useBindings, useUnbind } from '../api/access.ts';
import { useOrgMembers } from '../api/session.ts';
import { useTeams } from '../api/teams.ts';
import { type ScopeLevel, ScopeLevelFields, scopeLevelBody } from '../components/scope-level-fields.tsx';
import { Button } from '../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Field, Select } from '../components/ui/field.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { CanIForm } from './can-i.tsx';

export function AccessPage() {
  const bindings = useBindings();
  const members = useOrgMembers();
  const teams = useTeams();
  const [subject, setSubject] = useState('');
  const [where, setWhere] = useState<ScopeLevel>({ scope: 'deployment', scope_id: '', level: 'read' });
  const bind = useBind();
  const unbind = useUnbind();
  const who = (id: string | undefined) => members.data?.members.find((m) => m.userId === id)?.user.email ?? id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    bind.mutate({ subject_type: 'user', subject_id: subject, ...scopeLevelBody(where) } as BindingInput);
  };
  const list = bindings.data?.bindings ?? [];
  return (
    <div className="space-y-6">
      <PageHeader title="Access" />
      <form onSubmit={submit} className="grid max-w-4xl items-end gap-3 md:grid-cols-5">
        <Field label="Member">
          {(p) => (
            <Select {...p} required value={subject} onChange={(e) => setSubject(e.target.value)}>
              <option value="">Choose…</option>
              {(members.data?.members ?? []).map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.user.email}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <ScopeLevelFields value={where} onChange={setWhere} />
        <Button type="submit" variant="primary" disabled={bind.isPending}>
          Grant
        </Button>
      </form>
      {bind.error ? <ErrorState error={bind.error} title="Could not grant" /> : null}
      {unbind.error ? <ErrorState error={unbind.error} title="Could not remove" /> : null}
      {bindings.error ? <ErrorState error={bindings.error} /> : null}
      {bindings.isPending ? <Spinner /> : null}
      {bindings.data && list.length === 0 ? (
        <Empty title="No role bindings">Org roles apply everywhere; bindings add rights at a scope.</Empty>
      ) : null}
      {list.length > 0 ? (
        <Table aria-label="Role bindings">
          <thead>
            <tr>
              <Th>Who</Th>
              <Th>Scope</Th>
              <Th>Level</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {list.map((b) => (
              <tr key={b.id}>
                <Td>
                  {b.subject_type === 'user' ? (
                    who(b.subject_id)
                  ) : (
                    <Link to="/teams/$id" params={{ id: b.subject_id ?? '' }}>
                      team {teams.data?.teams?.find((t) => t.id === b.subject_id)?.name ?? b.subject_id}
                    </Link>
                  )}
                </Td>
                <Td>
                  {b.scope}
                  {b.scope_id ? ` ${b.scope_id}` : ''}
                </Td>
                <Td>{b.level}</Td>
                <Td className="text-right">
                  <Button
                    size="sm"
                    variant="danger"
                    aria-label={`Remove ${b.level} at ${b.scope} ${b.scope_id}`}
                    onClick={() => unbind.mutate(b.id ?? '')}
                  >
                    Remove
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
      <CanIForm />
    </div>
  );
}
