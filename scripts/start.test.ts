import { describe, expect, it } from 'vitest';
import { chooseCluster } from './start.ts';

describe('npm start: which management cluster', () => {
  it('starts a local control plane when none is configured, passing every argument to svc start', () => {
    expect(chooseCluster({}, ['--sync-period=10s'])).toEqual({
      choice: { kind: 'local' },
      svcArgs: ['--sync-period=10s'],
    });
    expect(chooseCluster({ SVC_MGMT_KUBECONFIG: '' }, [])).toEqual({ choice: { kind: 'local' }, svcArgs: [] });
  });

  it('keeps today’s behaviour with SVC_MGMT_KUBECONFIG, and starts without a cluster with --no-cluster', () => {
    expect(chooseCluster({ SVC_MGMT_KUBECONFIG: '/k/config' }, [])).toEqual({
      choice: { kind: 'configured', kubeconfig: '/k/config' },
      svcArgs: [],
    });
    expect(chooseCluster({}, ['--no-cluster', '--leader-elect=false'])).toEqual({
      choice: { kind: 'none' },
      svcArgs: ['--leader-elect=false'],
    });
  });
});
