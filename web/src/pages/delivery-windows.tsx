/**
 * The org's delivery windows (docs/operator.md "Delivery windows"): list, add, remove. With any allow window, syncs
 * run only inside one; a deny window always wins. The server checks each window and answers a bad one with 422.
 */
import { type FormEvent, useState } from 'react';
import { useOrgWindows, useSaveOrgWindows } from '../api/delivery-windows.ts';
import { Button } from '../components/ui/button.tsx';
import { Empty, ErrorState, PageHeader, Spinner } from '../components/ui/feedback.tsx';
import { Field, Input, Select } from '../components/ui/field.tsx';
import { Table, Td, Th } from '../components/ui/table.tsx';
import { fieldSetter } from '../lib/form.ts';

const EMPTY = { name: '', kind: 'allow', schedule: '', duration: '', timeZone: '' };

export function DeliveryWindowsPage() {
  const windows = useOrgWindows();
  const save = useSaveOrgWindows();
  const [form, setForm] = useState(EMPTY);
  const set = fieldSetter(setForm);
  const list = windows.data?.windows ?? [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const added = {
      name: form.name,
      kind: form.kind === 'deny' ? ('deny' as const) : ('allow' as const),
      schedule: form.schedule,
      duration: form.duration,
      ...(form.timeZone ? { timeZone: form.timeZone } : {}),
    };
    save.mutate({ windows: [...list, added] }, { onSuccess: () => setForm(EMPTY) });
  };
  return (
    <div className="space-y-6">
      <PageHeader title="Delivery windows" />
      <p className="max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        When syncs of the organization&apos;s Apps may run. With any allow window, syncs run only inside one; a deny
        window always wins. Automated syncs outside are held and run when the window opens; a manual sync is refused
        unless someone with deployment:manage overrides it once. Apps and clusters may add their own.
      </p>
      <form onSubmit={submit} className="grid max-w-4xl gap-3 md:grid-cols-3">
        <Field label="Name">
          {(p) => <Input {...p} required maxLength={63} value={form.name} onChange={set('name')} />}
        </Field>
        <Field label="Kind">
          {(p) => (
            <Select {...p} value={form.kind} onChange={set('kind')}>
              <option value="allow">allow</option>
              <option value="deny">deny</option>
            </Select>
          )}
        </Field>
        <Field label="Schedule" hint="five-field cron, e.g. 0 9 * * 1-5">
          {(p) => <Input {...p} required className="font-mono" value={form.schedule} onChange={set('schedule')} />}
        </Field>
        <Field label="Duration" hint="e.g. 8h, 30m">
          {(p) => <Input {...p} required value={form.duration} onChange={set('duration')} />}
        </Field>
        <Field label="Time zone" hint="IANA, default UTC">
          {(p) => <Input {...p} value={form.timeZone} onChange={set('timeZone')} />}
        </Field>
        <div className="self-end">
          <Button type="submit" variant="primary" disabled={save.isPending}>
            Add window
          </Button>
        </div>
      </form>
      {save.error ? <ErrorState error={save.error} title="Could not save the windows" /> : null}
      {windows.error ? <ErrorState error={windows.error} /> : null}
      {windows.isPending ? <Spinner /> : null}
      {windows.data && list.length === 0 ? <Empty title="No delivery windows: syncs run at any time" /> : null}
      {list.length > 0 ? (
        <Table aria-label="Delivery windows">
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Kind</Th>
              <Th>Schedule</Th>
              <Th>Duration</Th>
              <Th>Time zone</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {list.map((w) => (
              <tr key={w.name}>
                <Td>{w.name}</Td>
                <Td>{w.kind}</Td>
                <Td className="font-mono text-xs">{w.schedule}</Td>
                <Td>{w.duration}</Td>
                <Td>{w.timeZone ?? 'UTC'}</Td>
                <Td className="text-right">
                  <Button
                    size="sm"
                    variant="danger"
                    aria-label={`Remove the window ${w.name}`}
                    onClick={() => save.mutate({ windows: list.filter((x) => x.name !== w.name) })}
                  >
                    Remove
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
