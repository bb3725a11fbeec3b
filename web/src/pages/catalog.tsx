/**
 * The org's catalog (docs/api.md "Catalog"): its templates, and a form that makes an App from one. The params'
 * fields are drawn from the template's JSON Schema by the same component as the secret-store provider forms, so a
 * developer fills a form instead of writing YAML; the server checks the params against the schema and its message
 * is shown when it refuses them. Templates are written with `svc catalog create -f` or POST /catalog.
 */
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { appParams } from '../api/apps.ts';
import { useCatalog } from '../api/catalog.ts';
import { svc } from '../api/client.ts';
import { fieldSchema } from '../api/secret-stores.ts';
import { Button } from '../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Checkbox, Field, Input } from '../components/ui/field.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { fieldSetter } from '../lib/form.ts';
import { ago } from '../lib/format.ts';
import { type FieldValues, filled, SchemaFields } from './secret-stores/schema-fields.tsx';

type Template = NonNullable<ReturnType<typeof useCatalog>['data']>['templates'][number];

const sourceOf = (t: Template) =>
  t.source.type === 'HelmChart'
    ? `chart ${t.source.helmChart.chart} (${t.source.helmChart.repoURL})`
    : `git ${t.source.git.repoURL}`;

/** Makes an App of `template`: its name, namespace, params (drawn from the schema) and whether it syncs by itself. */
function CreateFromTemplate({ template }: { template: Template }) {
  const navigate = useNavigate();
  const [form, setForm] = useState({ name: '', namespace: '', automated: false });
  const [params, setParams] = useState<FieldValues>({});
  const set = fieldSetter(setForm);
  const create = useMutation({
    mutationFn: () =>
      svc.POST('/api/v1/apps', {
        body: {
          name: form.name,
          namespace: form.namespace,
          source: { type: 'Catalog', catalog: { template: template.name, params: filled(params) } },
          ...(form.automated ? { sync_policy: { automated: true } } : {}),
        },
      }),
    onSuccess: (app) => navigate({ to: '/apps/$namespace/$name', params: appParams(app) }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`Create an App from ${template.name}`} className="max-w-2xl space-y-3">
      <h2 className="text-lg font-semibold">Create an App from {template.name}</h2>
      {template.description ? <p className="text-sm text-zinc-600 dark:text-zinc-400">{template.description}</p> : null}
      <Field label="Name">
        {(p) => <Input {...p} required maxLength={63} value={form.name} onChange={set('name')} />}
      </Field>
      <Field label="Namespace" hint="where the App deploys">
        {(p) => <Input {...p} required maxLength={63} value={form.namespace} onChange={set('namespace')} />}
      </Field>
      <SchemaFields
        schema={fieldSchema(template.params_schema as unknown as Record<string, unknown>)}
        values={params}
        onChange={setParams}
      />
      <Checkbox
        label="Sync automatically (new template versions deploy by themselves)"
        checked={form.automated}
        onChange={(e) => setForm((f) => ({ ...f, automated: e.target.checked }))}
      />
      <Button type="submit" variant="primary" disabled={create.isPending}>
        Create App
      </Button>
      {create.error ? <ErrorState error={create.error} title="Could not create the App" /> : null}
    </form>
  );
}

export function CatalogPage() {
  const catalog = useCatalog();
  const [chosen, setChosen] = useState<string | undefined>();
  const template = catalog.data?.templates.find((t) => t.name === chosen);
  return (
    <div className="space-y-6">
      <PageHeader title="Catalog" />
      <p className="max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        Services your organization offers as templates: choose one, fill its params, and an App deploys it. Templates
        are written with <code>svc catalog create -f</code>; a new version rolls its Apps forward.
      </p>
      {catalog.error ? <ErrorState error={catalog.error} /> : null}
      {catalog.isPending ? <Spinner /> : null}
      {catalog.data && catalog.data.templates.length === 0 ? <Empty title="No templates yet" /> : null}
      {catalog.data && catalog.data.templates.length > 0 ? (
        <Table aria-label="Templates">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Version</Th>
              <Th>Source</Th>
              <Th>Params</Th>
              <Th>Updated</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {catalog.data.templates.map((t) => (
              <tr key={t.id}>
                <Td>{t.name}</Td>
                <Td>v{t.version}</Td>
                <Td className="text-xs">{sourceOf(t)}</Td>
                <Td className="font-mono text-xs">{Object.keys(t.params_schema.properties).join(', ')}</Td>
                <Td>{ago(t.updated_at)}</Td>
                <Td className="text-right">
                  <Button size="sm" aria-label={`Use ${t.name}`} onClick={() => setChosen(t.name)}>
                    Use
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
      {template ? <CreateFromTemplate key={template.name} template={template} /> : null}
    </div>
  );
}
