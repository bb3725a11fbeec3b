/**
 * The connection settings of a registry as a form (host, plain http, CA, username, password), shared by the create
 * and edit forms. The password is write-only: svc seals it and never answers it.
 */

import type { Dispatch, SetStateAction } from 'react';
import { Checkbox, Field, Input, Textarea } from '../../components/ui/field.tsx';
import { fieldSetter } from '../../lib/form.ts';

export interface RegistryForm {
  host: string;
  insecure: boolean;
  ca: string;
  username: string;
  password: string;
}

export function RegistryFields({
  form,
  onChange,
  passwordHint,
}: {
  form: RegistryForm;
  /** The form's state setter (fields update it from the latest state). */
  onChange: Dispatch<SetStateAction<RegistryForm>>;
  passwordHint: string;
}) {
  const set = fieldSetter(onChange);
  return (
    <>
      <Field label="Host" hint="name[:port], without scheme or path (ghcr.io, registry.example.com:5000)">
        {(p) => <Input {...p} required placeholder="ghcr.io" value={form.host} onChange={set('host')} />}
      </Field>
      <Checkbox
        label="Plain http (insecure; refused in production mode)"
        checked={form.insecure}
        onChange={set('insecure')}
      />
      <Field label="CA certificates" hint="PEM, to trust a private CA (optional)">
        {(p) => <Textarea {...p} rows={4} spellCheck={false} value={form.ca} onChange={set('ca')} />}
      </Field>
      <Field label="Username" hint="with a password, or neither (anonymous pulls)">
        {(p) => <Input {...p} autoComplete="off" value={form.username} onChange={set('username')} />}
      </Field>
      <Field label="Password" hint={passwordHint}>
        {(p) => (
          <Input {...p} type="password" autoComplete="new-password" value={form.password} onChange={set('password')} />
        )}
      </Field>
    </>
  );
}
