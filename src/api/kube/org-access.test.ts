import { describe, expect, it } from 'vitest';
import { orgOperatorBinding } from './org-access.ts';

describe('orgOperatorBinding', () => {
  it('binds the ClusterRole in the org namespace to each operator ServiceAccount', () => {
    const binding = orgOperatorBinding('org-acme', {
      clusterRole: 'svc-operator-org',
      serviceAccounts: ['system:serviceaccount:svc-system:svc-operator', 'system:serviceaccount:other:op'],
    });
    expect(binding).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'svc-operator-org', namespace: 'org-acme', labels: { 'app.kubernetes.io/managed-by': 'svc' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'svc-operator-org' },
      subjects: [
        { kind: 'ServiceAccount', name: 'svc-operator', namespace: 'svc-system' },
        { kind: 'ServiceAccount', name: 'op', namespace: 'other' },
      ],
    });
  });

  it('leaves out usernames that are not ServiceAccounts', () => {
    const binding = orgOperatorBinding('org-a', {
      clusterRole: 'r',
      serviceAccounts: ['alice', 'system:serviceaccount:x'],
    });
    expect(binding.subjects).toEqual([]);
  });
});
