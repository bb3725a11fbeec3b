/** Create an organization; its members and invitations (the auth component's organization routes). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { auth } from '../api/auth.ts';
import { useCreateOrg, useOrgMembers, useSession } from '../api/session.ts';
import { Button } from '../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Field, Input, Select } from '../components/ui/field.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';

/** A DNS-1123 label of at most 59 characters (the org's namespace is `org-<slug>`). */
const SLUG = /^[a-z0-9]([-a-z0-9]{0,57}[a-z0-9])?$/;
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 59);

export function OrgCreatePage() {
  const create = useCreateOrg();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState<string | undefined>();
  const effective = slug ?? slugOf(name);
  const slugError = effective && !SLUG.test(effective) ? 'lowercase letters, digits and dashes; at most 59' : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (slugError) return;
    create.mutate({ name, slug: effective }, { onSuccess: () => navigate({ to: '/apps' }) });
  };
  return (
    <div className="mx-auto mt-6 max-w-md">
      <PageHeader title="Create an organization" />
      <form onSubmit={submit} className="space-y-3">
        <Field label="Name">
          {(p) => <Input {...p} required value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Slug" hint={`Its apps live in the namespace org-${effective || '…'}.`} error={slugError}>
          {(p) => <Input {...p} required value={effective} onChange={(e) => setSlug(e.target.value)} />}
        </Field>
        {create.error ? <ErrorState error={create.error} title="Could not create the organization" /> : null}
        <Button type="submit" variant="primary" disabled={create.isPending || Boolean(slugError)}>
          Create organization
        </Button>
      </form>
    </div>
  );
}

const ROLES = ['viewer', 'contributor', 'admin', 'owner'];

export function MembersPage() {
  const qc = useQueryClient();
  const session = useSession();
  const members = useOrgMembers();
  const invitations = useQuery({
    queryKey: ['invitations'],
    queryFn: auth.invitations,
  });
  const mine = useQuery({
    queryKey: ['my-invitations'],
    queryFn: auth.myInvitations,
  });
  const invite = useMutation({
    mutationFn: auth.invite,
    onSuccess: () => qc.invalidateQueries({ queryKey: ['invitations'] }),
  });
  const accept = useMutation({
    mutationFn: auth.acceptInvitation,
    onSuccess: () => qc.invalidateQueries(),
  });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('viewer');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate({ email, role }, { onSuccess: () => setEmail('') });
  };
  const pendingMine = (mine.data ?? []).filter((i) => i.status === 'pending');
  return (
    <div className="space-y-6">
      <PageHeader title="Members" />
      {pendingMine.length > 0 ? (
        <section aria-labelledby="mine" className="space-y-2">
          <h2 id="mine" className="font-medium">
            Invitations for you
          </h2>
          {pendingMine.map((i) => (
            <div key={i.id} className="flex items-center gap-3 text-sm">
              <span>
                {i.organizationName ?? i.organizationId} as {i.role}
              </span>
              <Button size="sm" variant="primary" onClick={() => accept.mutate(i.id)}>
                Accept
              </Button>
            </div>
          ))}
        </section>
      ) : null}
      <section aria-labelledby="list" className="space-y-2">
        <h2 id="list" className="font-medium">
          People in this organization
        </h2>
        {members.error ? <ErrorState error={members.error} /> : null}
        {members.isPending ? <Spinner /> : null}
        {members.data ? (
          <Table>
            <thead>
              <tr>
                <Th>Name</Th>
                <Th>Email</Th>
                <Th>Role</Th>
              </tr>
            </thead>
            <tbody>
              {members.data.members.map((m) => (
                <tr key={m.id}>
                  <Td>
                    {m.user.name}
                    {m.userId === session.data?.user.id ? ' (you)' : ''}
                  </Td>
                  <Td>{m.user.email}</Td>
                  <Td>{m.role}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        ) : null}
      </section>
      <section aria-labelledby="invite" className="space-y-2">
        <h2 id="invite" className="font-medium">
          Invite someone
        </h2>
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <div className="min-w-64">
            <Field label="Email">
              {(p) => <Input {...p} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />}
            </Field>
          </div>
          <Field label="Role">
            {(p) => (
              <Select {...p} value={role} onChange={(e) => setRole(e.target.value)}>
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </Select>
            )}
          </Field>
          <Button type="submit" variant="primary" disabled={invite.isPending}>
            Send invitation
          </Button>
        </form>
        {invite.error ? <ErrorState error={invite.error} title="Could not invite" /> : null}
        {invitations.data && invitations.data.length > 0 ? (
          <Table>
            <thead>
              <tr>
                <Th>Invited</Th>
                <Th>Role</Th>
                <Th>Status</Th>
              </tr>
            </thead>
            <tbody>
              {invitations.data.map((i) => (
                <tr key={i.id}>
                  <Td>{i.email}</Td>
                  <Td>{i.role}</Td>
                  <Td>{i.status}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        ) : (
          <Empty title="No pending invitations" />
        )}
      </section>
    </div>
  );
}
