import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ARCHITECTURE_PATH, layerTable, loadLayers, withTable } from './layer-table.ts';

describe("ARCHITECTURE.md's table of layers", () => {
  it('is the one the layering rules generate (run `node scripts/layer-table.ts --write` after changing them)', () => {
    const doc = readFileSync(ARCHITECTURE_PATH, 'utf8');
    expect(doc).toBe(withTable(doc, layerTable(loadLayers())));
  });

  it('lists every layer with what it may import', () => {
    const table = layerTable({ core: { may: [], why: 'pure' }, 'log\\.ts': { may: ['core'], why: 'logs' } });
    expect(table.split('\n').slice(2)).toEqual(['| `src/core` | — | pure |', '| `src/log.ts` | `core` | logs |']);
  });
});
