/**
 * The org's custom health checks in CEL (docs/api.md "Health checks"): list, add or replace the check of an
 * apiVersion and kind, delete. The server compiles each expression and answers a bad one with its error, shown here.
 */
import { type FormEvent, useState } from 'react';
import { useDeleteHealthCheck, useHealthChecks, useSaveHealthCheck } from '../api/health-checks.ts';
import { Button } from '../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Field, Input } from '../components/ui/field.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { fieldSetter } from '../lib/form.ts';
import { ago } from '../lib/format.ts';

const EMPTY = { api_version: '', kind: '', in_progress: '', failed: '', current: '' };

export function HealthChecksPage() {
  const checks = useHealthChecks();
  const [form, setForm] = useState(EMPTY);
  const save = useSaveHealthCheck();
  const remove = useDeleteHealthCheck();
  const set = fieldSetter(setForm);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(
      {
        api_version: form.api_version,
        kind: form.kind,
        current: form.current,
        ...(form.in_progress ? { in_progress: form.in_progress } : {}),
        ...(form.failed ? { failed: form.failed } : {}),
      },
      { onSuccess: () => setForm(EMPTY) },
    );
  };
  const cel = (k: 'in_progress' | 'failed' | 'current', label: string, hint: string, required = false) => (
    <Field label={label} hint={hint}>
      {(p) => (
        <Input {...p} className="font-mono" required={required} maxLength={2048} value={form[k]} onChange={set(k)} />
      )}
    </Field>
  );
  return (
    <div className="space-y-6">
      <PageHeader title="Health checks" />
      <p className="max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        CEL expressions over an object&apos;s apiVersion, kind, metadata, spec and status, for every App of the
        organization. They replace the built-in check of their kind; an App&apos;s own checks replace these.
      </p>
      <form onSubmit={submit} className="grid max-w-4xl gap-3 md:grid-cols-2">
        <Field label="API version" hint="exactly as rendered, e.g. cert-manager.io/v1">
          {(p) => <Input {...p} required maxLength={253} value={form.api_version} onChange={set('api_version')} />}
        </Field>
        <Field label="Kind">
          {(p) => <Input {...p} required maxLength={63} value={form.kind} onChange={set('kind')} />}
        </Field>
        {cel('in_progress', 'In progress', 'true while Progressing (evaluated first)')}
        {cel('failed', 'Failed', 'true when Degraded (evaluated second)')}
        <div className="md:col-span-2">
          {cel('current', 'Current', 'true when Healthy; none true is Progressing', true)}
        </div>
        <div>
          <Button type="submit" variant="primary" disabled={save.isPending}>
            Save check
          </Button>
        </div>
      </form>
      {save.error ? <ErrorState error={save.error} title="Could not save the check" /> : null}
      {checks.error ? <ErrorState error={checks.error} /> : null}
      {checks.isPending ? <Spinner /> : null}
      {checks.data && checks.data.health_checks.length === 0 ? <Empty title="No health checks yet" /> : null}
      {checks.data && checks.data.health_checks.length > 0 ? (
        <Table aria-label="Health checks">
          <thead>
            <tr>
              <Th>Kind</Th>
              <Th>In progress</Th>
              <Th>Failed</Th>
              <Th>Current</Th>
              <Th>Updated</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {checks.data.health_checks.map((c) => (
              <tr key={c.id}>
                <Td>
                  {c.api_version} {c.kind}
                </Td>
                <Td className="font-mono text-xs">{c.in_progress ?? ''}</Td>
                <Td className="font-mono text-xs">{c.failed ?? ''}</Td>
                <Td className="font-mono text-xs">{c.current}</Td>
                <Td>{ago(c.updated_at)}</Td>
                <Td className="text-right">
                  <Button
                    size="sm"
                    variant="danger"
                    aria-label={`Delete the check of ${c.kind}`}
                    onClick={() => remove.mutate(c.id)}
                  >
                    Delete
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}
