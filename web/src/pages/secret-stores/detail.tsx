/**
 * One secret store: its state and config (never a credential), a re-test, the Apps using it, changes (name and
 * config; credentials replaced as a whole when given, blank keeps them) and deletion (409 while Apps use it).
 */
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { appParams } from '../../api/apps.ts';
import {
  fieldSchema,
  useDeleteStore,
  usePatchStore,
  useSecretStore,
  useStoreProviders,
  useStoreReferences,
  useTestStore,
} from '../../api/secret-stores.ts';
import type { SecretStore } from '../../api/types.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDelete } from '../../components/ui/confirm-delete.tsx';
import { Facts } from '../../components/ui/facts.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Field, Input } from '../../components/ui/field.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago, localTime } from '../../lib/format.ts';
import { CredentialFields, type FieldValues, filled, SchemaFields } from './schema-fields.tsx';
import { StoreTestResultView } from './test-result.tsx';

export function SecretStoreDetailPage() {
  const { id } = useParams({ from: '/secret-stores/$id' });
  const store = useSecretStore(id);
  const test = useTestStore();
  if (store.error) return <ErrorState error={store.error} title={`Secret store ${id}`} />;
  if (!store.data) return <Spinner />;
  const s = store.data;
  return (
    <div className="space-y-6">
      <PageHeader title={s.name}>
        <StatusBadge value={s.status} />
        <Button onClick={() => test.mutate({ id })} disabled={test.isPending}>
          Test
        </Button>
        <DeleteStore id={id} name={s.name ?? id} />
      </PageHeader>
      {test.data ? <StoreTestResultView result={test.data} /> : null}
      {test.error ? <ErrorState error={test.error} title="Could not test" /> : null}
      <Facts
        items={[
          [
            'Id',
            <span key="id" className="font-mono text-xs">
              {s.id}
            </span>,
          ],
          ['Type / provider', `${s.type} / ${s.provider}`],
          ['Status', s.statusDetail ? `${s.status}: ${s.statusDetail}` : s.status],
          ['Last tested', ago(s.lastTestedAt)],
          ['Credentials expire', s.credentialsExpireAt ? localTime(s.credentialsExpireAt) : ''],
          ...Object.entries(s.config ?? {}).map(([k, v]): [string, string] => [
            k,
            typeof v === 'string' ? v : JSON.stringify(v),
          ]),
          ['Created', localTime(s.createdAt)],
        ]}
      />
      <References id={id} />
      <EditStore id={id} store={s} />
    </div>
  );
}

function References({ id }: { id: string }) {
  const refs = useStoreReferences(id);
  return (
    <section aria-labelledby="references" className="space-y-2">
      <h2 id="references" className="font-medium">
        Used by
      </h2>
      {refs.error ? <ErrorState error={refs.error} /> : null}
      {refs.isPending ? <Spinner /> : null}
      {refs.data?.items?.length === 0 ? <Empty title="No App uses this store" /> : null}
      {refs.data?.items?.length ? (
        <Table aria-label="Apps using the store">
          <thead>
            <tr>
              <Th>App</Th>
              <Th>Cluster</Th>
              <Th>Use</Th>
            </tr>
          </thead>
          <tbody>
            {refs.data.items.map((r) => (
              <tr key={`${r.namespace}/${r.name}/${r.usage}/${r.env ?? ''}`}>
                <Td>
                  <Link to="/apps/$namespace/$name" params={appParams(r)}>
                    {r.namespace}/{r.name}
                  </Link>
                </Td>
                <Td>{r.cluster || 'management'}</Td>
                <Td>{r.usage === 'env' ? `env ${r.env ?? ''}` : 'SOPS decryption'}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </section>
  );
}

function EditStore({ id, store }: { id: string; store: SecretStore }) {
  const providers = useStoreProviders();
  const save = usePatchStore(id);
  const initial = Object.fromEntries(
    Object.entries(store.config ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  const [name, setName] = useState(store.name ?? '');
  const [config, setConfig] = useState<FieldValues>(initial);
  const [credentials, setCredentials] = useState<FieldValues>({});
  const provider = providers.data?.items?.find((p) => p.type === store.type && p.provider === store.provider);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Only what changed: a cleared field is removed (null), so the provider's default applies again.
    const changed = Object.fromEntries(
      Object.entries(config)
        .filter(([k, v]) => v !== (initial[k] ?? ''))
        .map(([k, v]) => [k, v === '' ? null : v]),
    );
    const secrets = filled(credentials);
    save.mutate(
      {
        ...(name !== store.name ? { name } : {}),
        ...(Object.keys(changed).length > 0 ? { config: changed } : {}),
        ...(Object.keys(secrets).length > 0 ? { credentials: secrets } : {}),
      },
      { onSuccess: () => setCredentials({}) },
    );
  };
  return (
    <section aria-labelledby="edit" className="max-w-2xl space-y-3">
      <h2 id="edit" className="font-medium">
        Settings
      </h2>
      <form onSubmit={submit} className="space-y-3">
        <Field label="Name">
          {(p) => <Input {...p} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        {providers.error ? <ErrorState error={providers.error} /> : null}
        {provider ? (
          <>
            <SchemaFields schema={fieldSchema(provider.config)} values={config} onChange={setConfig} />
            <p className="text-sm text-zinc-500">
              Stored credentials are never shown. New ones replace them as a whole; leave blank to keep them.
            </p>
            <CredentialFields
              schema={fieldSchema(provider.credentials)}
              values={credentials}
              onChange={setCredentials}
            />
          </>
        ) : null}
        <Button type="submit" variant="primary" disabled={save.isPending}>
          Save settings
        </Button>
        {save.isSuccess ? <output className="ml-3 text-sm text-emerald-700">Saved.</output> : null}
      </form>
      {save.error ? <ErrorState error={save.error} title="Could not save the settings" /> : null}
    </section>
  );
}

function DeleteStore({ id, name }: { id: string; name: string }) {
  const remove = useDeleteStore(id);
  const navigate = useNavigate();
  return (
    <ConfirmDelete
      noun="secret store"
      name={name}
      description="Its sealed credentials are deleted with it. Refused while Apps use the store."
      remove={remove}
      onDone={() => navigate({ to: '/secret-stores' })}
    />
  );
}
