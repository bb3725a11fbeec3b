import { describe, expect, it } from 'vitest';
import { layoutDependencies } from './dep-layout.ts';

const app = (name: string, ...depends_on: string[]) => ({ name, depends_on });
const placed = (l: ReturnType<typeof layoutDependencies>) =>
  Object.fromEntries(l.nodes.map((n) => [n.name, [n.column, n.row]]));

describe('dependency graph layout', () => {
  it('puts each App one column right of its deepest dependency; unconnected Apps are counted, not drawn', () => {
    const l = layoutDependencies([
      app('api', 'db', 'cache'),
      app('db'),
      app('cache', 'db'),
      app('web', 'api'),
      app('x'),
    ]);
    expect(placed(l)).toEqual({ db: [0, 0], cache: [1, 0], api: [2, 0], web: [3, 0] });
    expect(l.edges).toContainEqual({ from: 'db', to: 'api' });
    expect(l.edges).toHaveLength(4);
    expect([l.columns, l.rows, l.unconnected]).toEqual([4, 1, 1]);
  });

  it('orders a column by its dependencies’ rows, then by name', () => {
    const l = layoutDependencies([app('a'), app('b'), app('ya', 'b'), app('zb', 'a'), app('xb', 'b')]);
    expect(placed(l)).toEqual({ a: [0, 0], b: [0, 1], zb: [1, 0], xb: [1, 1], ya: [1, 2] });
    expect(l.rows).toBe(3);
  });

  it('draws a dependency no App is as a missing node, and a cycle without looping', () => {
    const l = layoutDependencies([app('api', 'gone'), app('p', 'q'), app('q', 'p')]);
    expect(l.nodes.find((n) => n.name === 'gone')).toMatchObject({ column: 0, missing: true });
    expect(l.nodes.find((n) => n.name === 'api')).toMatchObject({ column: 1, missing: false });
    expect(new Set(l.nodes.filter((n) => n.name === 'p' || n.name === 'q').map((n) => n.column))).toEqual(
      new Set([0, 1]),
    );
  });
});
