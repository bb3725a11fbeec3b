import { describe, expect, it } from 'vitest';
import { entryOf, inventoryId, mergeInventory, refOf } from './inventory.ts';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string) => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

describe('inventory entries', () => {
  it('name an object by namespace, name, group and kind, and keep its version apart', () => {
    expect(entryOf(obj('apps/v1', 'Deployment', 'web', 'shop'))).toEqual({ id: 'shop_web_apps_Deployment', v: 'v1' });
    expect(entryOf(obj('v1', 'ConfigMap', 'cm', 'shop'))).toEqual({ id: 'shop_cm__ConfigMap', v: 'v1' });
    expect(entryOf(obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'view'))).toEqual({
      id: '_view_rbac.authorization.k8s.io_ClusterRole',
      v: 'v1',
    });
  });

  it('turn back into the object they name, also when the name holds underscores and colons', () => {
    for (const o of [
      obj('apps/v1', 'Deployment', 'web', 'shop'),
      obj('v1', 'ConfigMap', 'a_b__c', 'shop'),
      obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'system:x_y'),
      obj('v1', 'Namespace', 'n'),
    ]) {
      expect(refOf(entryOf(o))).toEqual({ apiVersion: o.apiVersion, kind: o.kind, ...o.metadata });
    }
  });

  it('are the same across versions of one kind', () => {
    expect(inventoryId(obj('autoscaling/v1', 'HorizontalPodAutoscaler', 'h', 'n'))).toBe(
      inventoryId(obj('autoscaling/v2', 'HorizontalPodAutoscaler', 'h', 'n')),
    );
  });

  it('merge by id, the later version winning, sorted', () => {
    const merged = mergeInventory(
      [
        { id: 'n_b__ConfigMap', v: 'v1' },
        { id: 'n_h_autoscaling_HorizontalPodAutoscaler', v: 'v1' },
      ],
      [
        { id: 'n_h_autoscaling_HorizontalPodAutoscaler', v: 'v2' },
        { id: 'n_a__ConfigMap', v: 'v1' },
      ],
    );
    expect(merged).toEqual([
      { id: 'n_a__ConfigMap', v: 'v1' },
      { id: 'n_b__ConfigMap', v: 'v1' },
      { id: 'n_h_autoscaling_HorizontalPodAutoscaler', v: 'v2' },
    ]);
  });
});
