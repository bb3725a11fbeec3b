import { describe, expect, it } from 'vitest';
import { podRequest, providerOf, regionOf, usagePercent } from './probe.ts';

const node = (labels: Record<string, string>, providerID?: string, allocatable = { cpu: '4', memory: '8Gi' }) => ({
  metadata: { labels },
  spec: providerID ? { providerID } : {},
  status: { allocatable },
});

describe('cluster probe rules', () => {
  it('names the provider from the providerID scheme, else from provider labels', () => {
    expect(providerOf([node({}, 'aws:///eu-west-1a/i-0abc')])).toBe('aws');
    expect(providerOf([node({}, 'gce://project/zone/vm')])).toBe('gcp');
    expect(providerOf([node({ 'cloud.google.com/gke-nodepool': 'default' })])).toBe('gcp');
    expect(providerOf([node({ type: 'kwok' })])).toBe('kwok');
    expect(providerOf([node({ type: 'other' })])).toBe('');
    expect(providerOf([])).toBe('');
  });

  it('reads the region label', () => {
    expect(regionOf([node({}), node({ 'topology.kubernetes.io/region': 'eu-west-1' })])).toBe('eu-west-1');
    expect(regionOf([node({ 'failure-domain.beta.kubernetes.io/region': 'us-east1' })])).toBe('us-east1');
    expect(regionOf([node({})])).toBe('');
  });

  it('counts a pod as the scheduler does: max(containers, largest init container) + overhead', () => {
    const pod = {
      spec: {
        nodeName: 'n',
        containers: [{ resources: { requests: { cpu: '250m' } } }, { resources: { requests: { cpu: '250m' } } }],
        initContainers: [{ resources: { requests: { cpu: '1' } } }],
        overhead: { cpu: '100m' },
      },
    };
    expect(podRequest(pod, 'cpu')).toBeCloseTo(1.1);
    expect(podRequest({ spec: { containers: [{}] } }, 'memory')).toBe(0);
  });

  it('gives whole-percent use of allocatable, counting only scheduled pods', () => {
    const nodes = [node({}), node({})];
    const pods = [
      { spec: { nodeName: 'a', containers: [{ resources: { requests: { cpu: '2', memory: '4Gi' } } }] } },
      { spec: { containers: [{ resources: { requests: { cpu: '8' } } }] } },
    ];
    expect(usagePercent(nodes, pods, 'cpu')).toBe(25);
    expect(usagePercent(nodes, pods, 'memory')).toBe(25);
    expect(usagePercent([], pods, 'cpu')).toBe(0);
  });
});
