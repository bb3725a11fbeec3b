/**
 * The import page (docs/migrate.md; issue 28 item 4): Argo CD and Flux objects pasted as YAML (or read from a file),
 * or read by the server from a registered cluster or the management cluster. "Review" runs the dry-run and shows,
 * per object, what it becomes or why not, field by field, with the summary; "Import" applies the same input and
 * shows what was created. Credentials found in Secrets are never answered, so never shown.
 */
import { Link } from '@tanstack/react-router';
import { type ChangeEvent, type FormEvent, useState } from 'react';
import { useClusters } from '../api/clusters.ts';
import { type ImportInput, useImportApply, useImportReview } from '../api/import.ts';
import type { ImportEntry, ImportReport } from '../api/types.ts';
import { Button } from '../components/ui/button.tsx';
import { ErrorState, PageHeader } from '../components/ui/feedback.tsx';
import { Field, Select, Textarea } from '../components/ui/field.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { fieldSetter } from '../lib/form.ts';

/** The management cluster's value in the cluster select (cluster names are DNS labels: never this). */
const MANAGEMENT = '(management)';

const objectOf = (e: ImportEntry) =>
  `${e.object.kind} ${e.object.namespace ? `${e.object.namespace}/` : ''}${e.object.name}`;

function becomesOf(e: ImportEntry): string {
  if (e.becomes) return `${e.becomes.kind} ${e.becomes.name}`;
  return (e.partOf ?? []).map((p) => `part of ${p.kind} ${p.name}`).join(', ');
}

/** The fields of an entry that are not simply carried over, with their notes. */
function FieldNotes({ entry }: { entry: ImportEntry }) {
  const notes = entry.fields.filter((f) => f.status !== 'mapped' || f.note);
  if (notes.length === 0) return null;
  return (
    <ul className="space-y-0.5 text-xs text-zinc-600 dark:text-zinc-400">
      {notes.map((f) => (
        <li key={f.field} data-status={f.status}>
          <span className="font-mono">{f.field}</span> {f.status}
          {f.to ? ` → ${f.to}` : ''}
          {f.note ? `: ${f.note}` : ''}
        </li>
      ))}
    </ul>
  );
}

function Summary({ report }: { report: ImportReport }) {
  const s = report.summary;
  const src = report.source;
  return (
    <div className="space-y-1 text-sm" data-testid="import-summary">
      <p>
        {s.objects} objects: {s.mapped} mapped, {s.partial} partial, {s.unmapped} unmapped → {s.apps} apps, {s.appsets}{' '}
        appsets, {s.repositories} repositories, {s.registries} registries
        {report.applied ? `; created ${s.created}, failed ${s.failed}` : ' (review: nothing created yet)'}
      </p>
      {src ? (
        <p className="text-zinc-600 dark:text-zinc-400">
          Read from {src.cluster === '' ? 'the management cluster' : `cluster ${src.cluster}`},{' '}
          {src.namespaces.length === 0 ? 'every namespace' : `namespaces ${src.namespaces.join(', ')}`}
          {src.not_served.length > 0 ? `; not served there: ${src.not_served.join(', ')}` : ''}
          {src.notes.length > 0 ? `; ${src.notes.join('; ')}` : ''}
        </p>
      ) : null}
    </div>
  );
}

function ReportTable({ report }: { report: ImportReport }) {
  return (
    <Table aria-label={report.applied ? 'Import result' : 'Import review'}>
      <thead>
        <tr>
          <Th>Object</Th>
          <Th>Result</Th>
          <Th>Becomes</Th>
          {report.applied ? <Th>Applied</Th> : null}
          <Th>Why / fields</Th>
        </tr>
      </thead>
      <tbody>
        {report.entries.map((e) => (
          <tr key={`${e.object.apiVersion} ${objectOf(e)}`} data-object={e.object.name} className="align-top">
            <Td className="font-mono text-xs">{objectOf(e)}</Td>
            <Td>{e.result}</Td>
            <Td>{becomesOf(e)}</Td>
            {report.applied ? (
              <Td>{e.applied ? `${e.applied.status}${e.applied.error ? `: ${e.applied.error}` : ''}` : ''}</Td>
            ) : null}
            <Td>
              {e.reason ? <p className="text-sm">{e.reason}</p> : null}
              <FieldNotes entry={e} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

export function ImportPage() {
  const clusters = useClusters();
  const review = useImportReview();
  const apply = useImportApply();
  const [form, setForm] = useState({ from: 'yaml', documents: '', cluster: MANAGEMENT });
  const set = fieldSetter(setForm);
  // Import applies what was reviewed, not what the form says after a later edit.
  const [reviewed, setReviewed] = useState<ImportInput>();
  const input = (): ImportInput =>
    form.from === 'yaml'
      ? { documents: form.documents }
      : { from: { cluster: form.cluster === MANAGEMENT ? '' : form.cluster } };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply.reset();
    const body = input();
    setReviewed(body);
    review.mutate(body);
  };
  const readFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const text = await e.target.files?.[0]?.text();
    if (text !== undefined) setForm((f) => ({ ...f, documents: text }));
  };
  const report = apply.data ?? review.data;
  return (
    <div className="space-y-6">
      <PageHeader title="Import" />
      <p className="max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        Move in from Argo CD or Flux: what each Application, ApplicationSet, Kustomization, HelmRelease, source and
        repository Secret becomes in svc, field by field. Review creates nothing; Import creates the Apps, AppSets,
        repositories and registries, each under its own permission. Credentials are sealed and never shown.
      </p>
      <form onSubmit={submit} aria-label="Import" className="max-w-4xl space-y-3">
        <Field label="Read from">
          {(p) => (
            <Select {...p} value={form.from} onChange={set('from')}>
              <option value="yaml">YAML</option>
              <option value="cluster">a cluster</option>
            </Select>
          )}
        </Field>
        {form.from === 'yaml' ? (
          <>
            <Field label="Objects" hint="YAML documents, as kubectl get -o yaml or flux export writes them">
              {(p) => (
                <Textarea
                  {...p}
                  required
                  rows={14}
                  className="font-mono text-xs"
                  value={form.documents}
                  onChange={set('documents')}
                />
              )}
            </Field>
            <Field label="Or a file">
              {(p) => <input {...p} type="file" accept=".yaml,.yml,.json" onChange={readFile} />}
            </Field>
          </>
        ) : (
          <Field label="Cluster" hint="the management cluster is read in your organization's namespace only">
            {(p) => (
              <Select {...p} value={form.cluster} onChange={set('cluster')}>
                <option value={MANAGEMENT}>management cluster</option>
                {(clusters.data?.clusters ?? []).map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        )}
        <div className="flex gap-2">
          <Button type="submit" variant="primary" disabled={review.isPending}>
            Review
          </Button>
          {review.data && reviewed && !apply.data ? (
            <Button type="button" disabled={apply.isPending} onClick={() => apply.mutate(reviewed)}>
              Import
            </Button>
          ) : null}
        </div>
      </form>
      {review.error ? <ErrorState error={review.error} title="Could not review the import" /> : null}
      {apply.error ? <ErrorState error={apply.error} title="Could not import" /> : null}
      {report ? (
        <section aria-label={report.applied ? 'Imported' : 'Review'} className="space-y-3">
          <Summary report={report} />
          <ReportTable report={report} />
          {report.applied ? (
            <p className="text-sm">
              <Link to="/apps" className="underline">
                See the Apps
              </Link>
            </p>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
