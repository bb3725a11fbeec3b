/** The org's teams (GET /teams) and a form to create one (POST /teams). */
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useCreateTeam, useTeams } from '../../api/teams.ts';
import { Button } from '../../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Field, Input } from '../../components/ui/field.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { formatCount, localTime } from '../../lib/format.ts';

export function TeamListPage() {
  const teams = useTeams();
  const create = useCreateTeam();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name, { onSuccess: (t) => navigate({ to: '/teams/$id', params: { id: t.id ?? '' } }) });
  };
  return (
    <div className="space-y-4">
      <PageHeader title="Teams" />
      <p className="text-sm text-zinc-500">
        A team's role bindings apply to each of its members, on top of their own role and bindings.
      </p>
      <form onSubmit={submit} className="flex max-w-xl items-end gap-2">
        <div className="flex-1">
          <Field label="New team name">
            {(p) => <Input {...p} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
        </div>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          Create team
        </Button>
      </form>
      {create.error ? <ErrorState error={create.error} title="Could not create the team" /> : null}
      {teams.error ? <ErrorState error={teams.error} /> : null}
      {teams.isPending ? <Spinner /> : null}
      {teams.data?.teams?.length === 0 ? <Empty title="No teams yet" /> : null}
      {teams.data?.teams?.length ? (
        <Table aria-label="Teams">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Members</Th>
              <Th>Created</Th>
            </tr>
          </thead>
          <tbody>
            {teams.data.teams.map((t) => (
              <tr key={t.id} data-team={t.name}>
                <Td>
                  <Link to="/teams/$id" params={{ id: t.id ?? '' }}>
                    {t.name}
                  </Link>
                </Td>
                <Td>{formatCount(t.member_count)}</Td>
                <Td>{localTime(t.created_at, 'date')}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}
