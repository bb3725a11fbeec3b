/**
 * A new registry: test the settings without saving (POST /registries/test), create it (POST /registries), then show
 * its notification token once before going to its page.
 */
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { type RegistryConnection, useCreateRegistry, useTestRegistry } from '../../api/registries.ts';
import type { RegistryWithToken } from '../../api/types.ts';
import { Button } from '../../components/ui/button.tsx';
import { ErrorState, PageHeader } from '../../components/ui/feedback.tsx';
import { Field, Input } from '../../components/ui/field.tsx';
import { ShownOnce } from '../../components/ui/shown-once.tsx';
import { RegistryFields, type RegistryForm } from './connection-fields.tsx';
import { RegistryTestResultView } from './test-result.tsx';

/** The connection part of a create or test body: only what was filled in. */
export function connectionOf(form: RegistryForm): RegistryConnection {
  return {
    host: form.host.trim(),
    insecure: form.insecure,
    ...(form.ca ? { ca: form.ca } : {}),
    ...(form.username ? { username: form.username } : {}),
    ...(form.password ? { password: form.password } : {}),
  };
}

export function RegistryCreatePage() {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [form, setForm] = useState<RegistryForm>({ host: '', insecure: false, ca: '', username: '', password: '' });
  const [created, setCreated] = useState<RegistryWithToken | undefined>();
  const test = useTestRegistry();
  const create = useCreateRegistry();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name, ...connectionOf(form) }, { onSuccess: setCreated });
  };
  return (
    <div className="max-w-2xl space-y-4">
      <PageHeader title="New registry" />
      <form onSubmit={submit} className="space-y-3">
        <Field label="Name" hint="a DNS label, unique in the organization: Apps name it in registryRef">
          {(p) => <Input {...p} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <RegistryFields
          form={form}
          onChange={setForm}
          passwordHint="or a token; sealed at rest and never shown again"
        />
        <div className="flex gap-2">
          <Button onClick={() => test.mutate({ input: connectionOf(form) })} disabled={test.isPending}>
            Test settings
          </Button>
          <Button type="submit" variant="primary" disabled={create.isPending}>
            Create registry
          </Button>
        </div>
      </form>
      {test.data ? <RegistryTestResultView result={test.data} /> : null}
      {test.error ? <ErrorState error={test.error} title="Could not test" /> : null}
      {create.error ? <ErrorState error={create.error} title="Could not create the registry" /> : null}
      <ShownOnce
        value={created?.notification_token}
        title="The registry's notification token"
        testId="notification-token"
        onDone={() => created && navigate({ to: '/registries/$id', params: { id: created.id ?? '' } })}
      />
    </div>
  );
}
