/** Register a cluster: try the settings (POST /clusters/test) and register it (POST /clusters). */
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import {
  type ClusterTestInput,
  parseLabels,
  parseNamespaces,
  useRegisterCluster,
  useTestCluster,
} from '../../api/clusters.ts';
import { Button } from '../../components/ui/button.tsx';
import { ErrorState, PageHeader } from '../../components/ui/feedback.tsx';
import { Field, Input } from '../../components/ui/field.tsx';
import { ConnectionFields, type ConnectionForm } from './connection-fields.tsx';
import { ClusterTestResult } from './test-result.tsx';

export function ClusterRegisterPage() {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [form, setForm] = useState<ConnectionForm>({ server_url: '', kubeconfig: '', namespaces: '', labels: '' });
  const test = useTestCluster();
  const register = useRegisterCluster();
  const connection = (): ClusterTestInput => ({
    ...(form.server_url ? { server_url: form.server_url } : {}),
    ...(form.kubeconfig ? { kubeconfig: form.kubeconfig } : {}),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    register.mutate(
      {
        ...connection(),
        name,
        server_url: form.server_url,
        namespaces: parseNamespaces(form.namespaces),
        labels: parseLabels(form.labels),
      },
      { onSuccess: (r) => navigate({ to: '/clusters/$name', params: { name: r.cluster.name } }) },
    );
  };
  return (
    <div className="max-w-2xl space-y-4">
      <PageHeader title="Register a cluster" />
      <form onSubmit={submit} className="space-y-3">
        <Field label="Name" hint="a DNS label; Apps name their destination cluster by it">
          {(p) => <Input {...p} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <ConnectionFields
          form={form}
          onChange={setForm}
          kubeconfigHint="inline credentials only (no exec plugins or file references); sealed at rest and never shown again; empty = the server's in-cluster credentials"
        />
        <div className="flex gap-2">
          <Button onClick={() => test.mutate(connection())} disabled={test.isPending}>
            Test connection
          </Button>
          <Button type="submit" variant="primary" disabled={register.isPending}>
            Register cluster
          </Button>
        </div>
      </form>
      {test.data ? <ClusterTestResult result={test.data} /> : null}
      {test.error ? <ErrorState error={test.error} title="Could not test" /> : null}
      {register.error ? <ErrorState error={register.error} title="Could not register the cluster" /> : null}
    </div>
  );
}
