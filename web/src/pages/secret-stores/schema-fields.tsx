/**
 * Form fields drawn from a provider's JSON Schema (GET /secret-stores/providers), so the form asks exactly what the
 * server validates: one control per property (a select for an enum, a text area for long values), its description
 * as the hint, defaults as placeholders. Credential fields are password inputs: write-only, never prefilled.
 */
import { useState } from 'react';
import type { FieldSchema } from '../../api/secret-stores.ts';
import { Field, Input, Select, Textarea } from '../../components/ui/field.tsx';

export type FieldValues = Record<string, string>;

/** Long values (PEM certificates) get a text area. */
const MULTILINE_OVER = 4096;

/** The values that were filled in (an empty control sends nothing: the server's default applies). */
export function filled(values: FieldValues): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
}

export function SchemaFields({
  schema,
  values,
  onChange,
  secret = false,
}: {
  schema: FieldSchema;
  values: FieldValues;
  onChange: (values: FieldValues) => void;
  secret?: boolean;
}) {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return null;
  const required = new Set(schema.required ?? []);
  return (
    <>
      {properties.map(([key, field]) => {
        const value = values[key] ?? '';
        const set = (v: string) => onChange({ ...values, [key]: v });
        const label = required.has(key) ? key : `${key} (optional)`;
        return (
          <Field key={key} label={label} hint={field.description}>
            {(p) =>
              field.enum ? (
                <Select {...p} value={value} onChange={(e) => set(e.target.value)}>
                  <option value="">{field.default !== undefined ? `default (${String(field.default)})` : '—'}</option>
                  {field.enum.map((o) => (
                    <option key={o}>{o}</option>
                  ))}
                </Select>
              ) : (field.maxLength ?? 0) > MULTILINE_OVER ? (
                <Textarea {...p} rows={4} spellCheck={false} value={value} onChange={(e) => set(e.target.value)} />
              ) : (
                <Input
                  {...p}
                  type={secret ? 'password' : 'text'}
                  autoComplete={secret ? 'new-password' : 'off'}
                  placeholder={field.default !== undefined ? String(field.default) : undefined}
                  value={value}
                  onChange={(e) => set(e.target.value)}
                />
              )
            }
          </Field>
        );
      })}
    </>
  );
}

/**
 * Credential fields: a schema that is a union (a token, or an AppRole roleId and secretId) first asks which form,
 * then that branch's fields.
 */
export function CredentialFields({
  schema,
  values,
  onChange,
}: {
  schema: FieldSchema;
  values: FieldValues;
  onChange: (values: FieldValues) => void;
}) {
  const [branch, setBranch] = useState(0);
  const branches = schema.anyOf ?? [schema];
  const chosen = branches[Math.min(branch, branches.length - 1)] ?? schema;
  return (
    <>
      {branches.length > 1 ? (
        <Field label="Authentication" hint={schema.description}>
          {(p) => (
            <Select
              {...p}
              value={String(branch)}
              onChange={(e) => {
                setBranch(Number(e.target.value));
                onChange({});
              }}
            >
              {branches.map((b, i) => (
                <option key={b.description ?? i} value={i}>
                  {b.description ?? `form ${i + 1}`}
                </option>
              ))}
            </Select>
          )}
        </Field>
      ) : null}
      <SchemaFields schema={chosen} values={values} onChange={onChange} secret />
    </>
  );
}
