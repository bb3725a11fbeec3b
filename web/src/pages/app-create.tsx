/**
 * Create an App (POST /apps) or clone one (POST /apps/{ns}/{name}/clone). Names are checked as they are typed with
 * the server's own rule (src/core/names.ts); "Check" sends the payload to POST /apps/preview, which validates
 * exactly as create does and resolves the source (an image's digest) without writing anything.
 */
import { useMutation } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { dnsLabelProblem } from '../../../src/core/names.ts';
import { appParams } from '../api/apps.ts';
import { svc } from '../api/client.ts';
import { useRepositories } from '../api/repositories.ts';
import type { AppView, RequestBody } from '../api/types.ts';

/** The Git source's manifest types, as the create body names them (the select offers only these). */
type ManifestType = NonNullable<
  Extract<RequestBody<'/api/v1/apps', 'post'>['source'], { type: 'Git' }>['git']['manifestType']
>;

import { Button } from '../components/ui/button.tsx';
import { ErrorState, PageHeader } from '../components/ui/feedback.tsx';
import { Checkbox, Field, Input, Select } from '../components/ui/field.tsx';
import { fieldSetter } from '../lib/form.ts';
import { HelmChartFields, type HelmChartForm, helmChartSource } from './helm-chart-fields.tsx';

/** Opens the page of `app`. */
function appPage(app: AppView) {
  return { to: '/apps/$namespace/$name', params: appParams(app) } as const;
}

function CloneForm({ from }: { from: string }) {
  const [namespace0, name0] = from.split('/');
  const navigate = useNavigate();
  const [name, setName] = useState(`${name0 ?? ''}-copy`);
  const [namespace, setNamespace] = useState(namespace0 ?? '');
  const clone = useMutation({
    mutationFn: () =>
      svc.POST('/api/v1/apps/{namespace}/{name}/clone', {
        params: { path: { namespace: namespace0 ?? '', name: name0 ?? '' } },
        body: { name, namespace },
      }),
    onSuccess: (app) => navigate(appPage(app)),
  });
  const nameError = name ? dnsLabelProblem('name', name) : undefined;
  const nsError = namespace ? dnsLabelProblem('namespace', namespace) : undefined;
  return (
    <form
      className="max-w-md space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        clone.mutate();
      }}
    >
      <p className="text-sm text-zinc-500">
        Copies the source, sync policy and destination of {from}; the copy starts unsynced.
      </p>
      <Field label="New name" error={nameError}>
        {(p) => <Input {...p} required value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Destination namespace" error={nsError}>
        {(p) => <Input {...p} required value={namespace} onChange={(e) => setNamespace(e.target.value)} />}
      </Field>
      {clone.error ? <ErrorState error={clone.error} title="Could not clone" /> : null}
      <Button type="submit" variant="primary" disabled={clone.isPending || Boolean(nameError || nsError)}>
        Clone
      </Button>
    </form>
  );
}

export function AppCreatePage() {
  const search = useSearch({ from: '/apps/new' });
  const navigate = useNavigate();
  const [form, setForm] = useState({
    name: '',
    namespace: '',
    cluster: '',
    type: 'Git',
    repoURL: '',
    branch: '',
    path: '',
    manifestType: 'Auto',
    repository: '',
    tag: '',
    automated: false,
    prune: true,
    requiresApproval: false,
    autoRollback: '',
    webhook: false,
  });
  const [chart, setChart] = useState<HelmChartForm>({ repositoryId: '', chart: '', version: '' });
  const repositories = useRepositories();
  const set = fieldSetter(setForm);
  const payload = (): RequestBody<'/api/v1/apps', 'post'> => ({
    name: form.name,
    namespace: form.namespace,
    ...(form.cluster ? { cluster: form.cluster } : {}),
    source:
      form.type === 'HelmChart'
        ? { type: 'HelmChart', helmChart: helmChartSource(chart, repositories.data?.repositories ?? []) }
        : form.type === 'Git'
          ? {
              type: 'Git',
              git: {
                repoURL: form.repoURL,
                ...(form.branch ? { branch: form.branch } : {}),
                ...(form.path ? { path: form.path } : {}),
                ...(form.manifestType !== 'Auto' ? { manifestType: form.manifestType as ManifestType } : {}),
              },
            }
          : { type: 'Image', image: { repository: form.repository, tag: form.tag } },
    sync_policy: {
      automated: form.automated,
      prune: form.prune,
      requiresApproval: form.requiresApproval,
      ...(form.autoRollback ? { autoRollback: { onDegradedFor: form.autoRollback } } : {}),
    },
    ...(form.webhook ? { webhook: { enabled: true } } : {}),
  });
  const preview = useMutation({ mutationFn: () => svc.POST('/api/v1/apps/preview', { body: payload() }) });
  const create = useMutation({
    mutationFn: () => svc.POST('/api/v1/apps', { body: payload() }),
    onSuccess: (app) => navigate(appPage(app)),
  });
  if (search.clone) {
    return (
      <div>
        <PageHeader title={`Clone ${search.clone}`} />
        <CloneForm from={search.clone} />
      </div>
    );
  }
  const nameError = form.name ? dnsLabelProblem('name', form.name) : undefined;
  const nsError = form.namespace ? dnsLabelProblem('namespace', form.namespace) : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <div>
      <PageHeader title="New app" />
      <form onSubmit={submit} className="grid max-w-3xl gap-4 md:grid-cols-2">
        <Field label="Name" error={nameError} hint="Lowercase letters, digits and dashes.">
          {(p) => <Input {...p} required value={form.name} onChange={set('name')} />}
        </Field>
        <Field label="Destination namespace" error={nsError}>
          {(p) => <Input {...p} required value={form.namespace} onChange={set('namespace')} />}
        </Field>
        <Field label="Destination cluster" hint="Empty: the management cluster.">
          {(p) => <Input {...p} value={form.cluster} onChange={set('cluster')} />}
        </Field>
        <Field label="Source type">
          {(p) => (
            <Select {...p} value={form.type} onChange={set('type')}>
              <option value="Git">Git repository</option>
              <option value="Image">Container image</option>
              <option value="HelmChart">Helm chart</option>
            </Select>
          )}
        </Field>
        {form.type === 'HelmChart' ? (
          <HelmChartFields form={chart} onChange={setChart} />
        ) : form.type === 'Git' ? (
          <>
            <Field
              label="Repository URL"
              hint="https://, ssh:// or git:// URL; a private one with a repository registered under Repositories."
            >
              {(p) => (
                <Input
                  {...p}
                  required
                  value={form.repoURL}
                  onChange={set('repoURL')}
                  placeholder="https://git.example.com/team/app.git"
                />
              )}
            </Field>
            <Field label="Branch" hint="Default main.">
              {(p) => <Input {...p} value={form.branch} onChange={set('branch')} />}
            </Field>
            <Field label="Path" hint="Directory of manifests; default the repository root.">
              {(p) => <Input {...p} value={form.path} onChange={set('path')} />}
            </Field>
            <Field label="Manifest type">
              {(p) => (
                <Select {...p} value={form.manifestType} onChange={set('manifestType')}>
                  {['Auto', 'Raw', 'Kustomize', 'Helm'].map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </Select>
              )}
            </Field>
          </>
        ) : (
          <>
            <Field label="Image repository">
              {(p) => <Input {...p} required value={form.repository} onChange={set('repository')} />}
            </Field>
            <Field label="Tag">{(p) => <Input {...p} required value={form.tag} onChange={set('tag')} />}</Field>
          </>
        )}
        <fieldset className="space-y-2 md:col-span-2">
          <legend className="text-sm font-medium">Sync policy</legend>
          <Checkbox
            label="Sync automatically when upstream changes"
            checked={form.automated}
            onChange={set('automated')}
          />
          <Checkbox label="Prune objects that leave the source" checked={form.prune} onChange={set('prune')} />
          <Checkbox
            label="Hold syncs for approval"
            checked={form.requiresApproval}
            onChange={set('requiresApproval')}
          />
          <Checkbox label="Sync on push events" checked={form.webhook} onChange={set('webhook')} />
          <Field
            label="Roll back automatically after Degraded for"
            hint="A duration such as 5m: a new revision Degraded this long is rolled back to the last healthy one and held. Empty: off."
          >
            {(p) => <Input {...p} value={form.autoRollback} onChange={set('autoRollback')} placeholder="5m" />}
          </Field>
        </fieldset>
        <div className="space-y-3 md:col-span-2">
          {preview.data ? (
            <div
              role="status"
              className="rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-900 dark:bg-emerald-950"
            >
              Valid.{' '}
              {preview.data.resolved?.digest
                ? `Resolves to ${preview.data.resolved.image}@${preview.data.resolved.digest}`
                : preview.data.resolved?.ref
                  ? `Follows ${preview.data.resolved.ref}.`
                  : ''}
            </div>
          ) : null}
          {preview.error ? <ErrorState error={preview.error} title="Not valid" /> : null}
          {create.error ? <ErrorState error={create.error} title="Could not create the app" /> : null}
          <div className="flex gap-2">
            <Button onClick={() => preview.mutate()} disabled={preview.isPending}>
              Check
            </Button>
            <Button type="submit" variant="primary" disabled={create.isPending || Boolean(nameError || nsError)}>
              Create app
            </Button>
          </div>
        </div>
      </form>
    </div>
  );
}
