/**
 * The connection settings of a registry as a form (host, plain http, CA, username, password), shared by the create
 * and edit forms. The password is write-only: svc seals it and never answers it.
 */
import { Checkbox, Field, Input, Textarea } from '../../components/ui/field.tsx';

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
  onChange: (form: RegistryForm) => void;
  passwordHint: string;
}) {
  const set =
    (k: 'host' | 'ca' | 'username' | 'password') => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
      onChange({ ...form, [k]: e.target.value });
  return (
    <>
      <Field label="Host" hint="name[:port], without scheme or path (ghcr.io, registry.example.com:5000)">
        {(p) => <Input {...p} required placeholder="ghcr.io" value={form.host} onChange={set('host')} />}
      </Field>
      <Checkbox
        label="Plain http (insecure; refused in production mode)"
        checked={form.insecure}
        onChange={(e) => onChange({ ...form, insecure: e.target.checked })}
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
