/**
 * One registry: its settings (never the password), a test, changes (blank password keeps it), a new notification
 * token (shown once) and deletion (409 naming the Apps that use it).
 */
import { useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import {
  type RegistryChange,
  useDeleteRegistry,
  useRegistry,
  useTestRegistry,
  useUpdateRegistry,
} from '../../api/registries.ts';
import type { Registry } from '../../api/types.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDelete } from '../../components/ui/confirm-delete.tsx';
import { Facts } from '../../components/ui/facts.tsx';
import { ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Checkbox, Field, Input } from '../../components/ui/field.tsx';
import { ShownOnce } from '../../components/ui/shown-once.tsx';
import { ago, localTime } from '../../lib/format.ts';
import { RegistryFields, type RegistryForm } from './connection-fields.tsx';
import { RegistryTestResultView } from './test-result.tsx';

export function RegistryDetailPage() {
  const { id } = useParams({ from: '/registries/$id' });
  const registry = useRegistry(id);
  const test = useTestRegistry();
  if (registry.error) return <ErrorState error={registry.error} title={`Registry ${id}`} />;
  if (!registry.data) return <Spinner />;
  const r = registry.data;
  return (
    <div className="space-y-6">
      <PageHeader title={r.name}>
        <StatusBadge value={r.status} />
        <Button onClick={() => test.mutate({ id })} disabled={test.isPending}>
          Test
        </Button>
        <DeleteRegistry id={id} name={r.name ?? id} />
      </PageHeader>
      {test.data ? <RegistryTestResultView result={test.data} /> : null}
      {test.error ? <ErrorState error={test.error} title="Could not test" /> : null}
      <Facts
        items={[
          [
            'Id',
            <span key="id" className="font-mono text-xs">
              {r.id}
            </span>,
          ],
          ['Host', `${r.insecure ? 'http' : 'https'}://${r.host}`],
          ['Username', r.username ?? 'anonymous'],
          ['Password', r.has_password ? 'set (never shown)' : 'none'],
          ['CA certificates', r.ca ? 'set' : 'system roots'],
          ['Status', r.status_detail ? `${r.status}: ${r.status_detail}` : r.status],
          ['Last tested', ago(r.last_tested_at)],
          [
            'Notification URL',
            <span key="url" className="font-mono text-xs break-all">
              {r.notification_url}
            </span>,
          ],
          ['Created', localTime(r.created_at)],
          ['Updated', localTime(r.updated_at)],
        ]}
      />
      <RotateToken id={id} />
      <EditRegistry id={id} registry={r} />
    </div>
  );
}

function RotateToken({ id }: { id: string }) {
  const rotate = useUpdateRegistry(id);
  const [token, setToken] = useState<string | undefined>();
  return (
    <section aria-labelledby="notifications" className="max-w-2xl space-y-2">
      <h2 id="notifications" className="font-medium">
        Push notifications
      </h2>
      <p className="text-sm text-zinc-500">
        The registry posts its push events to the notification URL with this token as a Bearer token; a push then
        redeploys the Follow Apps of that tag at once. A new token replaces the old one.
      </p>
      <Button
        disabled={rotate.isPending}
        onClick={() =>
          rotate.mutate({ rotate_notification_token: true }, { onSuccess: (r) => setToken(r.notification_token) })
        }
      >
        New notification token
      </Button>
      {rotate.error ? <ErrorState error={rotate.error} title="Could not rotate the token" /> : null}
      <ShownOnce
        value={token}
        title="The registry's new notification token"
        testId="notification-token"
        onDone={() => setToken(undefined)}
      />
    </section>
  );
}

function EditRegistry({ id, registry }: { id: string; registry: Registry }) {
  const save = useUpdateRegistry(id);
  const [name, setName] = useState(registry.name ?? '');
  const initial: RegistryForm = {
    host: registry.host ?? '',
    insecure: registry.insecure ?? false,
    ca: registry.ca ?? '',
    username: registry.username ?? '',
    password: '',
  };
  const [form, setForm] = useState<RegistryForm>(initial);
  const [anonymous, setAnonymous] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Only what changed; a cleared CA or username is removed (null); a blank password keeps the stored one.
    const changes: RegistryChange = {
      ...(name !== registry.name ? { name } : {}),
      ...(form.host !== initial.host ? { host: form.host.trim() } : {}),
      ...(form.insecure !== initial.insecure ? { insecure: form.insecure } : {}),
      ...(form.ca !== initial.ca ? { ca: form.ca || null } : {}),
      ...(anonymous
        ? { username: null, password: null }
        : {
            ...(form.username !== initial.username ? { username: form.username || null } : {}),
            ...(form.password ? { password: form.password } : {}),
          }),
    };
    save.mutate(changes, {
      onSuccess: () => {
        setForm((f) => ({ ...f, password: '' }));
        setAnonymous(false);
      },
    });
  };
  return (
    <section aria-labelledby="edit" className="max-w-2xl space-y-3">
      <h2 id="edit" className="font-medium">
        Settings
      </h2>
      <form onSubmit={submit} className="space-y-3">
        <Field label="Name" hint="renaming is refused while Apps name the registry">
          {(p) => <Input {...p} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <RegistryFields
          form={form}
          onChange={setForm}
          passwordHint="the stored password is never shown; a new one replaces it, blank keeps it"
        />
        <Checkbox
          label="Pull anonymously (forget the stored username and password)"
          checked={anonymous}
          onChange={(e) => setAnonymous(e.target.checked)}
        />
        <Button type="submit" variant="primary" disabled={save.isPending}>
          Save settings
        </Button>
        {save.isSuccess ? <output className="ml-3 text-sm text-emerald-700">Saved.</output> : null}
      </form>
      {save.error ? <ErrorState error={save.error} title="Could not save the settings" /> : null}
    </section>
  );
}

function DeleteRegistry({ id, name }: { id: string; name: string }) {
  const remove = useDeleteRegistry(id);
  const navigate = useNavigate();
  return (
    <ConfirmDelete
      noun="registry"
      name={name}
      description="Its sealed credentials go with it. Refused while Apps name it in registryRef."
      remove={remove}
      onDone={() => navigate({ to: '/registries' })}
    />
  );
}
