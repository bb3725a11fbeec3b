/**
 * The settings of a cluster as a form (server URL, kubeconfig, namespace allowlist, labels), shared by the
 * register and update forms. The kubeconfig is write-only: svc seals it and never answers it.
 */
import type { Dispatch, SetStateAction } from 'react';
import { Field, Input, Textarea } from '../../components/ui/field.tsx';
import { fieldSetter } from '../../lib/form.ts';

export interface ConnectionForm {
  server_url: string;
  kubeconfig: string;
  namespaces: string;
  labels: string;
}

export function ConnectionFields({
  form,
  onChange,
  kubeconfigHint,
}: {
  form: ConnectionForm;
  /** The form's state setter (fields update it from the latest state). */
  onChange: Dispatch<SetStateAction<ConnectionForm>>;
  kubeconfigHint: string;
}) {
  const set = fieldSetter(onChange);
  return (
    <>
      <Field label="Server URL" hint="https:// address of the cluster's API server">
        {(p) => (
          <Input
            {...p}
            type="url"
            placeholder="https://10.0.0.10:6443"
            value={form.server_url}
            onChange={set('server_url')}
          />
        )}
      </Field>
      <Field label="Kubeconfig" hint={kubeconfigHint}>
        {(p) => (
          <Textarea
            {...p}
            rows={6}
            autoComplete="off"
            spellCheck={false}
            value={form.kubeconfig}
            onChange={set('kubeconfig')}
          />
        )}
      </Field>
      <Field label="Namespace allowlist" hint="comma-separated; empty = the whole cluster">
        {(p) => <Input {...p} placeholder="shop, web" value={form.namespaces} onChange={set('namespaces')} />}
      </Field>
      <Field label="Labels" hint="key=value, comma-separated; AppSets select clusters by them">
        {(p) => <Input {...p} placeholder="env=prod, region=eu" value={form.labels} onChange={set('labels')} />}
      </Field>
    </>
  );
}
