/** The live resources as a table (the same tree as the graph), with the details of one selected. */
import { useState } from 'react';
import { useTree } from '../../api/apps.ts';
import type { TreeNode } from '../../api/types.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Empty, ErrorState, Spinner } from '../../components/ui/feedback.tsx';
import { Table, Td, Th } from '../../components/ui/table.tsx';
import { ago } from '../../lib/format.ts';

/** Details of one node: health message, facts and annotations (all as text). */
export function NodeDetails({ node }: { node: TreeNode }) {
  return (
    <section
      aria-label={`${node.kind} ${node.name}`}
      className="rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800"
    >
      <h3 className="font-medium">
        {node.kind} {node.namespace ? `${node.namespace}/` : ''}
        {node.name}
      </h3>
      {node.message ? <p className="mt-1 text-zinc-600 dark:text-zinc-400">{node.message}</p> : null}
      <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1">
        {Object.entries(node.info ?? {}).map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-zinc-500">{k}</dt>
            <dd className="break-all">{Array.isArray(v) ? v.join(', ') : String(v)}</dd>
          </div>
        ))}
        {Object.entries(node.annotations ?? {}).map(([k, v]) => (
          <div key={k} className="contents" data-annotation={k}>
            <dt className="text-zinc-500">{k}</dt>
            <dd className="break-all">{String(v)}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** Depth of each node (0 for the App's own objects), for indenting the list. */
function depths(nodes: TreeNode[]): Map<string | undefined, number> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out = new Map<string | undefined, number>();
  for (const n of nodes) {
    let d = 0;
    for (let p = n.parent; p && d < 10; p = byId.get(p)?.parent ?? null) d++;
    out.set(n.id, d);
  }
  return out;
}

export function ResourceList({ namespace, name }: { namespace: string; name: string }) {
  const tree = useTree(namespace, name);
  const [selected, setSelected] = useState<string | undefined>();
  if (tree.error) return <ErrorState error={tree.error} />;
  if (!tree.data) return <Spinner />;
  const nodes = tree.data.nodes ?? [];
  if (nodes.length === 0) return <Empty title="Nothing applied yet" />;
  const depth = depths(nodes);
  const chosen = nodes.find((n) => n.id === selected);
  return (
    <div className="grid gap-4 lg:grid-cols-[2fr_1fr]">
      <Table aria-label="Resources">
        <thead>
          <tr>
            <Th>Kind</Th>
            <Th>Name</Th>
            <Th>Health</Th>
            <Th>Sync</Th>
            <Th>Age</Th>
          </tr>
        </thead>
        <tbody>
          {nodes.map((n) => (
            <tr key={n.id} data-kind={n.kind}>
              <Td style={{ paddingLeft: `${0.75 + (depth.get(n.id) ?? 0) * 1.25}rem` }}>{n.kind}</Td>
              <Td>
                <Button variant="ghost" size="sm" aria-pressed={selected === n.id} onClick={() => setSelected(n.id)}>
                  {n.name}
                </Button>
              </Td>
              <Td>
                <StatusBadge value={n.health} />
              </Td>
              <Td>{n.sync_status ? <StatusBadge value={n.sync_status} /> : null}</Td>
              <Td>{ago(n.created_at)}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
      {chosen ? (
        <NodeDetails node={chosen} />
      ) : (
        <p className="text-sm text-zinc-500">Choose a resource for its details.</p>
      )}
    </div>
  );
}
