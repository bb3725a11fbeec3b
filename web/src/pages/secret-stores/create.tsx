/**
 * A new secret store: choose the provider, fill its config and credential fields (drawn from the provider's
 * schemas), test the settings without saving (POST /secret-stores/test), create (POST /secret-stores).
 */
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import {
  fieldSchema,
  type StoreTestInput,
  useCreateStore,
  useStoreProviders,
  useTestStore,
} from '../../api/secret-stores.ts';
import { Button } from '../../components/ui/button.tsx';
import { ErrorState, PageHeader, Spinner } from '../../components/ui/feedback.tsx';
import { Field, Input, Select } from '../../components/ui/field.tsx';
import { CredentialFields, type FieldValues, filled, SchemaFields } from './schema-fields.tsx';
import { StoreTestResultView } from './test-result.tsx';

export function SecretStoreCreatePage() {
  const navigate = useNavigate();
  const providers = useStoreProviders();
  const [choice, setChoice] = useState(0);
  const [name, setName] = useState('');
  const [config, setConfig] = useState<FieldValues>({});
  const [credentials, setCredentials] = useState<FieldValues>({});
  const test = useTestStore();
  const create = useCreateStore();
  if (providers.error) return <ErrorState error={providers.error} />;
  if (!providers.data) return <Spinner />;
  const items = providers.data.items ?? [];
  const provider = items[choice];
  // The provider's type and name as the providers route answered them (the select offers no other).
  // Its config and credential fields are the ones that provider's schema lists (the form is built from it).
  const body = (): StoreTestInput =>
    ({
      type: provider?.type,
      provider: provider?.provider,
      config: filled(config),
      credentials: filled(credentials),
    }) as StoreTestInput;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { ...body(), name },
      { onSuccess: (s) => navigate({ to: '/secret-stores/$id', params: { id: s.id ?? '' } }) },
    );
  };
  return (
    <div className="max-w-2xl space-y-4">
      <PageHeader title="New secret store" />
      <form onSubmit={submit} className="space-y-3">
        <Field label="Provider" hint={provider?.description}>
          {(p) => (
            <Select
              {...p}
              value={String(choice)}
              onChange={(e) => {
                setChoice(Number(e.target.value));
                setConfig({});
                setCredentials({});
                test.reset();
              }}
            >
              {items.map((o, i) => (
                <option key={`${o.type}/${o.provider}`} value={i}>
                  {o.type} / {o.provider}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Name" hint="unique in the organization (a DNS label: Apps name SOPS stores by it)">
          {(p) => <Input {...p} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        {provider ? (
          <fieldset key={choice} className="space-y-3">
            <legend className="sr-only">Settings of {provider.provider}</legend>
            <SchemaFields schema={fieldSchema(provider.config)} values={config} onChange={setConfig} />
            <CredentialFields
              schema={fieldSchema(provider.credentials)}
              values={credentials}
              onChange={setCredentials}
            />
          </fieldset>
        ) : null}
        <div className="flex gap-2">
          <Button onClick={() => test.mutate({ input: { ...body(), name } })} disabled={test.isPending}>
            Test settings
          </Button>
          <Button type="submit" variant="primary" disabled={create.isPending}>
            Create store
          </Button>
        </div>
      </form>
      {test.data ? <StoreTestResultView result={test.data} /> : null}
      {test.error ? <ErrorState error={test.error} title="Could not test" /> : null}
      {create.error ? <ErrorState error={create.error} title="Could not create the store" /> : null}
    </div>
  );
}
