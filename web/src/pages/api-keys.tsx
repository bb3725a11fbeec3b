/** The caller's API keys: mint (the plaintext shown once), list (prefix and metadata), revoke. */
import { type FormEvent, useState } from 'react';
import { type ApiKeyInput, useApiKeys, useMintApiKey, useRevokeApiKey } from '../api/access.ts';
import { Button } from '../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Field, Input, Select } from '../components/ui/field.tsx';
import { ShownOnce } from '../components/ui/shown-once.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { fieldSetter } from '../lib/form.ts';
import { ago, localTime } from '../lib/format.ts';

export function ApiKeysPage() {
  const keys = useApiKeys();
  const [form, setForm] = useState({
    name: '',
    role: 'read' as ApiKeyInput['role'],
    scope: 'org' as ApiKeyInput['scope'],
    scope_id: '',
    expires_days: '30',
  });
  const [minted, setMinted] = useState<string | undefined>();
  const mint = useMintApiKey();
  const revoke = useRevokeApiKey();
  // The selects offer only the server's roles and scopes.
  const set = fieldSetter(setForm);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mint.mutate(
      {
        name: form.name,
        role: form.role,
        scope: form.scope,
        ...(form.scope === 'org' ? {} : { scope_id: form.scope_id }),
        expires_days: Number(form.expires_days),
        // Each scope has its own scope_id rule; the server checks the pairing.
      } as ApiKeyInput,
      {
        onSuccess: (k) => {
          setMinted(k.key);
          setForm((f) => ({ ...f, name: '' }));
        },
      },
    );
  };
  const list = keys.data?.api_keys ?? [];
  return (
    <div className="space-y-6">
      <PageHeader title="API keys" />
      <form onSubmit={submit} className="grid max-w-4xl items-end gap-3 md:grid-cols-6">
        <div className="md:col-span-2">
          <Field label="Name">
            {(p) => <Input {...p} required maxLength={100} value={form.name} onChange={set('name')} />}
          </Field>
        </div>
        <Field label="Role ceiling">
          {(p) => (
            <Select {...p} value={form.role} onChange={set('role')}>
              <option>read</option>
              <option>sync</option>
              <option>admin</option>
            </Select>
          )}
        </Field>
        <Field label="Scope">
          {(p) => (
            <Select {...p} value={form.scope} onChange={set('scope')}>
              <option>org</option>
              <option>cluster</option>
              <option>deployment</option>
            </Select>
          )}
        </Field>
        <Field
          label="Scope id"
          hint={
            form.scope === 'deployment' ? '<cluster>/<namespace>' : form.scope === 'cluster' ? 'cluster name' : 'none'
          }
        >
          {(p) => <Input {...p} disabled={form.scope === 'org'} value={form.scope_id} onChange={set('scope_id')} />}
        </Field>
        <Field label="Expires in days" hint="0 = never">
          {(p) => (
            <Input {...p} type="number" min={0} max={3650} value={form.expires_days} onChange={set('expires_days')} />
          )}
        </Field>
        <Button type="submit" variant="primary" disabled={mint.isPending}>
          Create key
        </Button>
      </form>
      {mint.error ? <ErrorState error={mint.error} title="Could not create the key" /> : null}
      <ShownOnce value={minted} title="Your new API key" testId="minted-key" onDone={() => setMinted(undefined)} />
      {keys.error ? <ErrorState error={keys.error} /> : null}
      {keys.isPending ? <Spinner /> : null}
      {keys.data && list.length === 0 ? <Empty title="No API keys yet" /> : null}
      {list.length > 0 ? (
        <Table aria-label="API keys">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Prefix</Th>
              <Th>Role</Th>
              <Th>Scope</Th>
              <Th>Expires</Th>
              <Th>Last used</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {list.map((k) => (
              <tr key={k.id}>
                <Td>{k.name}</Td>
                <Td className="font-mono text-xs">{k.prefix}…</Td>
                <Td>{k.role}</Td>
                <Td>
                  {k.scope}
                  {k.scope_id ? ` ${k.scope_id}` : ''}
                </Td>
                <Td>{k.expires_at ? localTime(k.expires_at, 'date') : 'never'}</Td>
                <Td>{ago(k.last_used_at)}</Td>
                <Td className="text-right">
                  {k.revoked ? (
                    'revoked'
                  ) : (
                    <Button
                      size="sm"
                      variant="danger"
                      aria-label={`Revoke ${k.name}`}
                      onClick={() => revoke.mutate(k.id ?? '')}
                    >
                      Revoke
                    </Button>
                  )}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}
