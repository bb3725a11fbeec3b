/**
 * A new repository, test first: "Test" sends the settings to POST /repositories/test (nothing is saved); "Create
 * repository" is offered once the settings as they stand have passed a test, and saves them (POST /repositories).
 * Secrets are sealed at rest and never shown again.
 */
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { type RepositoryConnection, useCreateRepository, useTestRepository } from '../../api/repositories.ts';
import { Button } from '../../components/ui/button.tsx';
import { ErrorState, PageHeader } from '../../components/ui/feedback.tsx';
import { Checkbox, Field, Input, Select, Textarea } from '../../components/ui/field.tsx';
import { fieldSetter } from '../../lib/form.ts';
import { RepositoryTestResultView } from './test-result.tsx';

const EMPTY = {
  type: 'git' as 'git' | 'helm',
  url: '',
  insecure: false,
  username: '',
  password: '',
  ssh_private_key: '',
  known_hosts: '',
  ca: '',
  tls_client_cert: '',
  tls_client_key: '',
};
type Form = typeof EMPTY;

/** The connection part of a create or test body: only what was filled in. */
function connectionOf(form: Form): RepositoryConnection {
  const text = (k: Exclude<keyof Form, 'type' | 'insecure'>) => (form[k].trim() ? { [k]: form[k] } : {});
  return {
    type: form.type,
    url: form.url.trim(),
    ...(form.insecure ? { insecure: true } : {}),
    ...text('username'),
    ...text('password'),
    ...text('ssh_private_key'),
    ...text('known_hosts'),
    ...text('ca'),
    ...text('tls_client_cert'),
    ...text('tls_client_key'),
  };
}

export function RepositoryCreatePage() {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [form, setForm] = useState<Form>(EMPTY);
  const [tested, setTested] = useState<string | undefined>();
  const test = useTestRepository();
  const create = useCreateRepository();
  const settings = JSON.stringify(connectionOf(form));
  const passed = test.data?.status === 'connected' && tested === settings;
  const ssh = form.type === 'git' && (/^ssh:\/\//.test(form.url) || /^[\w.-]+@[\w.-]+:/.test(form.url));
  const set = fieldSetter(setForm);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name, ...connectionOf(form) },
      { onSuccess: (r) => navigate({ to: '/repositories/$id', params: { id: r.id ?? '' } }) },
    );
  };
  const secret = (
    label: string,
    k: 'ssh_private_key' | 'known_hosts' | 'ca' | 'tls_client_cert' | 'tls_client_key',
    hint: string,
  ) => (
    <Field label={label} hint={hint}>
      {(p) => <Textarea {...p} rows={3} value={form[k]} onChange={set(k)} className="font-mono text-xs" />}
    </Field>
  );
  return (
    <div className="max-w-2xl space-y-4">
      <PageHeader title="New repository" />
      <form onSubmit={submit} className="space-y-3">
        <Field label="Name" hint="a DNS label, unique in the organization: Apps may name it in repositoryRef">
          {(p) => <Input {...p} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Type">
          {(p) => (
            <Select {...p} value={form.type} onChange={set('type')}>
              <option value="git">Git repository</option>
              <option value="helm">Helm chart repository (https:// or oci://)</option>
            </Select>
          )}
        </Field>
        <Field
          label="URL"
          hint="Covers every source URL below it, e.g. https://git.example.com/team or oci://registry.example.com/charts"
        >
          {(p) => <Input {...p} required value={form.url} onChange={set('url')} />}
        </Field>
        {form.type === 'helm' && form.url.startsWith('oci://') ? (
          <Checkbox
            label="Plain http (a registry without TLS; refused in production)"
            checked={form.insecure}
            onChange={set('insecure')}
          />
        ) : null}
        {ssh ? (
          <>
            {secret('SSH private key', 'ssh_private_key', 'sealed at rest and never shown again')}
            {secret(
              'known_hosts',
              'known_hosts',
              'the host keys the server must present (ssh-keyscan); an unknown key fails',
            )}
          </>
        ) : (
          <>
            <Field label="User name">{(p) => <Input {...p} value={form.username} onChange={set('username')} />}</Field>
            <Field label="Password or token" hint="sealed at rest and never shown again">
              {(p) => (
                <Input {...p} type="password" value={form.password} onChange={set('password')} autoComplete="off" />
              )}
            </Field>
            {secret('CA certificates', 'ca', 'PEM, for a private CA')}
            {secret('TLS client certificate', 'tls_client_cert', 'PEM')}
            {secret('TLS client key', 'tls_client_key', 'PEM; sealed at rest and never shown again')}
          </>
        )}
        <div className="flex gap-2">
          <Button
            onClick={() => test.mutate({ input: connectionOf(form) }, { onSuccess: () => setTested(settings) })}
            disabled={test.isPending}
          >
            Test
          </Button>
          <Button type="submit" variant="primary" disabled={!passed || create.isPending}>
            Create repository
          </Button>
        </div>
        {!passed ? (
          <p className="text-xs text-zinc-500">Test the settings first; a repository is saved once they work.</p>
        ) : null}
      </form>
      {test.data ? <RepositoryTestResultView result={test.data} /> : null}
      {test.error ? <ErrorState error={test.error} title="Could not test" /> : null}
      {create.error ? <ErrorState error={create.error} title="Could not create the repository" /> : null}
    </div>
  );
}
