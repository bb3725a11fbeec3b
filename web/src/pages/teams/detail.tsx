/**
 * One team: rename, members (added from the org's members, removed), the team's role bindings (granted and
 * removed like a user's on the Access page) and deletion (its bindings go with it).
 */
import { useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useOrgMembers } from '../../api/session.ts';
import {
  useAddTeamMember,
  useBindTeam,
  useDeleteTeam,
  useRemoveTeamMember,
  useRenameTeam,
  useTeam,
  useUnbindTeam,
} from '../../api/teams.ts';
import type { Team } from '../../api/types.ts';
import { type ScopeLevel, ScopeLevelFields, scopeLevelBody } from '../../components/scope-level-fields.tsx';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDelete } from '../../components/ui/confirm-delete.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Field, Input, Select } from '../../components/ui/field.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { localTime } from '../../lib/format.ts';

export function TeamDetailPage() {
  const { id } = useParams({ from: '/teams/$id' });
  const team = useTeam(id);
  if (team.error) return <ErrorState error={team.error} title={`Team ${id}`} />;
  if (!team.data) return <Spinner />;
  const t = team.data;
  return (
    <div className="space-y-6">
      <PageHeader title={t.name}>
        <DeleteTeam team={t} />
      </PageHeader>
      <RenameTeam team={t} />
      <Members team={t} />
      <Bindings team={t} />
    </div>
  );
}

function RenameTeam({ team }: { team: Team }) {
  const rename = useRenameTeam(team.id ?? '');
  const [name, setName] = useState(team.name ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate(name);
  };
  return (
    <section aria-labelledby="rename" className="max-w-xl space-y-2">
      <h2 id="rename" className="font-medium">
        Name
      </h2>
      <form onSubmit={submit} className="flex items-end gap-2">
        <div className="flex-1">
          <Field label="Team name">
            {(p) => <Input {...p} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
        </div>
        <Button type="submit" variant="primary" disabled={rename.isPending || name === team.name}>
          Rename
        </Button>
      </form>
      {rename.error ? <ErrorState error={rename.error} title="Could not rename the team" /> : null}
    </section>
  );
}

function Members({ team }: { team: Team }) {
  const members = useOrgMembers();
  const add = useAddTeamMember(team.id ?? '');
  const remove = useRemoveTeamMember(team.id ?? '');
  const [user, setUser] = useState('');
  const inTeam = new Set((team.members ?? []).map((m) => m.user_id));
  const candidates = (members.data?.members ?? []).filter((m) => !inTeam.has(m.userId));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(user, { onSuccess: () => setUser('') });
  };
  return (
    <section aria-labelledby="members" className="space-y-3">
      <h2 id="members" className="font-medium">
        Members
      </h2>
      <form onSubmit={submit} className="flex max-w-xl items-end gap-2">
        <div className="flex-1">
          <Field label="Org member to add">
            {(p) => (
              <Select {...p} required value={user} onChange={(e) => setUser(e.target.value)}>
                <option value="">Choose…</option>
                {candidates.map((m) => (
                  <option key={m.userId} value={m.userId}>
                    {m.user.email}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        </div>
        <Button type="submit" variant="primary" disabled={add.isPending}>
          Add member
        </Button>
      </form>
      {members.error ? <ErrorState error={members.error} title="Cannot list the org's members" /> : null}
      {add.error ? <ErrorState error={add.error} title="Could not add the member" /> : null}
      {remove.error ? <ErrorState error={remove.error} title="Could not remove the member" /> : null}
      {(team.members ?? []).length === 0 ? (
        <Empty title="No members yet" />
      ) : (
        <Table aria-label="Team members">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Email</Th>
              <Th>Added</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {(team.members ?? []).map((m) => (
              <tr key={m.user_id}>
                <Td>{m.name}</Td>
                <Td>{m.email}</Td>
                <Td>{m.added_at ? localTime(m.added_at, 'date') : '—'}</Td>
                <Td className="text-right">
                  <Button
                    size="sm"
                    variant="danger"
                    aria-label={`Remove ${m.email} from the team`}
                    disabled={remove.isPending}
                    onClick={() => remove.mutate(m.user_id ?? '')}
                  >
                    Remove
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

function Bindings({ team }: { team: Team }) {
  const bind = useBindTeam(team.id ?? '');
  const unbind = useUnbindTeam(team.id ?? '');
  const [where, setWhere] = useState<ScopeLevel>({ scope: 'deployment', scope_id: '', level: 'read' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    bind.mutate(scopeLevelBody(where));
  };
  return (
    <section aria-labelledby="bindings" className="space-y-3">
      <h2 id="bindings" className="font-medium">
        Role bindings
      </h2>
      <form onSubmit={submit} className="grid max-w-4xl items-end gap-3 md:grid-cols-4">
        <ScopeLevelFields value={where} onChange={setWhere} />
        <Button type="submit" variant="primary" disabled={bind.isPending}>
          Grant
        </Button>
      </form>
      {bind.error ? <ErrorState error={bind.error} title="Could not grant" /> : null}
      {unbind.error ? <ErrorState error={unbind.error} title="Could not remove" /> : null}
      {(team.bindings ?? []).length === 0 ? (
        <Empty title="No role bindings">The team's members hold what the team is granted here.</Empty>
      ) : (
        <Table aria-label="Team role bindings">
          <thead>
            <tr>
              <Th>Scope</Th>
              <Th>Level</Th>
              <Th>Granted</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {(team.bindings ?? []).map((b) => (
              <tr key={b.id}>
                <Td>
                  {b.scope}
                  {b.scope_id ? ` ${b.scope_id}` : ''}
                </Td>
                <Td>{b.level}</Td>
                <Td>{localTime(b.created_at, 'date')}</Td>
                <Td className="text-right">
                  <Button
                    size="sm"
                    variant="danger"
                    aria-label={`Remove ${b.level} at ${b.scope} ${b.scope_id}`}
                    disabled={unbind.isPending}
                    onClick={() => unbind.mutate(b.id ?? '')}
                  >
                    Remove
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

function DeleteTeam({ team }: { team: Team }) {
  const remove = useDeleteTeam(team.id ?? '');
  const navigate = useNavigate();
  return (
    <ConfirmDelete
      noun="team"
      name={team.name ?? ''}
      description="Its members stay in the organization; the team's role bindings are removed with it."
      remove={remove}
      onDone={() => navigate({ to: '/teams' })}
    />
  );
}
