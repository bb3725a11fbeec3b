import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CliError } from './errors.ts';
import { parseOutputFormat, render, renderFields, renderTable } from './output.ts';

const view = (rows: Array<{ a: string; b: unknown }>) => ({
  rows,
  columns: [
    { header: 'name', value: (r: { a: string }) => r.a },
    { header: 'detail', value: (r: { b: unknown }) => r.b, wide: true },
  ],
  empty: 'Nothing.',
});

describe('client output', () => {
  it('aligns table columns under upper-case headers; wide adds columns', () => {
    const rows = [
      { a: 'web', b: { x: 1 } },
      { a: 'a-longer-name', b: 'multi\nline' },
    ];
    expect(renderTable(view(rows), false)).toBe('NAME\nweb\na-longer-name\n');
    expect(renderTable(view(rows), true)).toBe(
      'NAME            DETAIL\nweb             {"x":1}\na-longer-name   multi line\n',
    );
    expect(renderTable(view([]), false)).toBe('Nothing.\n');
  });

  it('prints json and yaml that parse back to the same value', () => {
    const data = { apps: [{ name: 'web', n: 1, none: null, nested: { list: ['a', 'b'] } }] };
    expect(JSON.parse(render(data, 'json', () => ''))).toEqual(data);
    expect(parse(render(data, 'yaml', () => ''))).toEqual(data);
    expect(render(data, 'table', () => 'text\n')).toBe('text\n');
  });

  it('lines up fields and refuses unknown formats as usage errors', () => {
    expect(
      renderFields([
        ['Name', 'web'],
        ['Sync policy', { prune: true }],
      ]),
    ).toBe('Name:         web\nSync policy:  {"prune":true}\n');
    expect(parseOutputFormat(undefined)).toBe('table');
    expect(() => parseOutputFormat('xml')).toThrow(CliError);
  });
});
