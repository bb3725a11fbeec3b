/** "Can I …?": asks the server's one permission decider (POST /auth/can-i) for the signed-in user. */
import { type FormEvent, useState } from 'react';
import { PERMISSIONS } from '../../../src/core/permissions.ts';
import { type CanIInput, useCanI } from '../api/access.ts';
import { Button } from '../components/ui/button.tsx';
import { ErrorState } from '../components/ui/feedback.tsx';
import { Field, Input, Select } from '../components/ui/field.tsx';
import { fieldSetter } from '../lib/form.ts';

export function CanIForm() {
  const [form, setForm] = useState({
    permission: 'deployment:sync',
    scope: 'org' as NonNullable<CanIInput['scope']>,
    scope_id: '',
  });
  const ask = useCanI();
  // The selects offer only the server's permissions and scopes.
  const field = fieldSetter(setForm);
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    field(k)(e);
    ask.reset();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ask.mutate({
      permission: form.permission,
      scope: form.scope,
      ...(form.scope === 'org' ? {} : { scope_id: form.scope_id }),
      // Each scope has its own scope_id rule; the server checks the pairing.
    } as CanIInput);
  };
  return (
    <section aria-labelledby="can-i" className="space-y-3">
      <h2 id="can-i" className="font-medium">
        Can I…?
      </h2>
      <form onSubmit={submit} className="grid max-w-4xl items-end gap-3 md:grid-cols-4">
        <Field label="Permission">
          {(p) => (
            <Select {...p} value={form.permission} onChange={set('permission')}>
              {PERMISSIONS.map((perm) => (
                <option key={perm}>{perm}</option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="At scope">
          {(p) => (
            <Select {...p} value={form.scope} onChange={set('scope')}>
              <option>org</option>
              <option>cluster</option>
              <option>deployment</option>
            </Select>
          )}
        </Field>
        <Field label="At scope id" hint={form.scope === 'deployment' ? '<cluster>/<namespace>' : undefined}>
          {(p) => <Input {...p} disabled={form.scope === 'org'} value={form.scope_id} onChange={set('scope_id')} />}
        </Field>
        <Button type="submit" disabled={ask.isPending}>
          Check
        </Button>
      </form>
      {ask.data ? (
        <output data-testid="can-i" className="block text-sm">
          {ask.data.allowed ? 'Allowed' : 'Not allowed'}: {form.permission} at {form.scope}
          {form.scope === 'org' ? '' : ` ${form.scope_id}`}
        </output>
      ) : null}
      {ask.error ? <ErrorState error={ask.error} title="Could not ask" /> : null}
    </section>
  );
}
