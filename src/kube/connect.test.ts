import { describe, expect, it } from 'vitest';
import { managementSource } from './connect.ts';

describe('managementSource', () => {
  it('reads SVC_MGMT_KUBECONFIG: `in-cluster` or a kubeconfig path', () => {
    expect(managementSource('in-cluster')).toEqual({ inCluster: true });
    expect(managementSource('/etc/svc/kubeconfig')).toEqual({ kubeconfigPath: '/etc/svc/kubeconfig' });
  });
});
