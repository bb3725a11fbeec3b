/**
 * The live resource graph: the App, its objects, their ReplicaSets and Pods, laid out left to right by ELK
 * (loaded with this view only), coloured by health; choosing a node shows its details. Refreshes with the tree.
 */
import '@xyflow/react/dist/style.css';
import { Background, Controls, type Edge, Handle, type Node, type NodeProps, Position, ReactFlow } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { useApp, useTree } from '../../api/apps.ts';
import type { TreeNode } from '../../api/types.ts';
import { StatusBadge } from '../../components/ui/badge.tsx';
import { Empty, ErrorState, Spinner } from '../../components/ui/feedback.tsx';
import { cn } from '../../lib/cn.ts';
import { NodeDetails } from './resource-list.tsx';

const W = 220;
const H = 58;
const ROOT = '__app';

type Data = {
  kind: string;
  name: string;
  health: string;
  /** Why the node is not Healthy (its health message; the App's reason on the App node), shown under the name. */
  reason?: string;
  selected: boolean;
  onSelect: () => void;
};

const BORDER: Record<string, string> = {
  Healthy: 'border-emerald-500',
  Degraded: 'border-red-500',
  Progressing: 'border-sky-500',
  Missing: 'border-orange-500',
};

function ResourceNode({ data }: NodeProps<Node<Data>>) {
  const reason = data.reason && data.health !== 'Healthy' ? data.reason : '';
  return (
    <button
      type="button"
      onClick={data.onSelect}
      aria-pressed={data.selected}
      aria-label={`${data.kind} ${data.name}${reason ? ` ${reason}` : ''}, ${data.health}`}
      data-node-kind={data.kind}
      className={cn(
        'flex h-[58px] w-[220px] flex-col items-start justify-center rounded-md border-l-4 border-y border-r border-y-zinc-200 border-r-zinc-200 bg-white px-2 text-left text-xs shadow-sm dark:border-y-zinc-700 dark:border-r-zinc-700 dark:bg-zinc-900',
        BORDER[data.health] ?? 'border-l-zinc-400',
        data.selected && 'ring-2 ring-sky-500',
      )}
    >
      <Handle type="target" position={Position.Left} className="!opacity-0" />
      {/* The spaces keep the words apart in the button's text (its name matches what it shows). */}
      <span className="text-zinc-500">{data.kind}</span>{' '}
      <span className="w-full truncate font-medium text-zinc-900 dark:text-zinc-100">{data.name}</span>{' '}
      {reason ? (
        <>
          <span className="w-full truncate text-[10px] text-zinc-500" title={reason} data-node-reason>
            {reason}
          </span>{' '}
        </>
      ) : null}
      <StatusBadge value={data.health} className="absolute top-1 right-1" />
      <Handle type="source" position={Position.Right} className="!opacity-0" />
    </button>
  );
}

const nodeTypes = { resource: ResourceNode };

/** A node's message without its `group/Kind name: ` prefix (the node shows kind and name already). */
function detail(message: string | undefined): string {
  const colon = message?.indexOf(': ') ?? -1;
  return message && colon !== -1 ? message.slice(colon + 2) : (message ?? '');
}

/** Positions from ELK's layered layout. */
async function layout(
  ids: string[],
  edges: { source: string; target: string }[],
): Promise<Map<string, { x: number; y: number }>> {
  const { default: ELK } = await import('elkjs/lib/elk.bundled.js');
  const graph = await new ELK().layout({
    id: 'graph',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '16',
      'elk.layered.spacing.nodeNodeBetweenLayers': '56',
    },
    children: ids.map((id) => ({ id, width: W, height: H })),
    edges: edges.map((e, i) => ({ id: `e${i}`, sources: [e.source], targets: [e.target] })),
  });
  return new Map((graph.children ?? []).map((c) => [c.id, { x: c.x ?? 0, y: c.y ?? 0 }]));
}

export default function ResourceGraph({ namespace, name }: { namespace: string; name: string }) {
  const tree = useTree(namespace, name);
  const app = useApp(namespace, name);
  const [selected, setSelected] = useState<string | undefined>();
  const [positions, setPositions] = useState<Map<string, { x: number; y: number }>>();
  const nodes = tree.data?.nodes;
  const shape = useMemo(() => (nodes ?? []).map((n) => `${n.id ?? ''}>${n.parent ?? ROOT}`).join('|'), [nodes]);
  // Layout only when the shape changes (nodes and links), not on every health refresh.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `shape` summarises `nodes`
  useEffect(() => {
    if (!nodes) return;
    const edges = nodes.map((n) => ({ source: n.parent ?? ROOT, target: n.id ?? '' }));
    let live = true;
    void layout([ROOT, ...nodes.map((n) => n.id ?? '')], edges).then((p) => live && setPositions(p));
    return () => {
      live = false;
    };
  }, [shape]);
  if (tree.error) return <ErrorState error={tree.error} />;
  if (!nodes || !positions) return <Spinner label="Laying out the resources" />;
  if (nodes.length === 0) return <Empty title="Nothing applied yet">Sync the app to see its resources.</Empty>;
  const all: { id: string; data: Omit<Data, 'selected' | 'onSelect'> }[] = [
    {
      id: ROOT,
      data: {
        kind: 'App',
        name,
        health: app.data?.health ?? tree.data?.health ?? 'Unknown',
        reason: app.data?.health_reason ?? '',
      },
    },
    ...nodes.map((n: TreeNode) => ({
      id: n.id ?? '',
      data: { kind: n.kind ?? '', name: n.name ?? '', health: n.health ?? 'Unknown', reason: detail(n.message) },
    })),
  ];
  // Keyboard: each node's own button is its one Tab stop (named by its kind, name and health); React Flow's
  // wrappers and edges are not focusable, and an edge is named by the objects it joins, never by their uids.
  const flowNodes: Node<Data>[] = all.map((n) => ({
    id: n.id,
    type: 'resource',
    position: positions.get(n.id) ?? { x: 0, y: 0 },
    data: { ...n.data, selected: selected === n.id, onSelect: () => setSelected(n.id) },
    draggable: false,
    focusable: false,
    ariaRole: 'group',
    ariaLabel: `${n.data.kind} ${n.data.name}`,
  }));
  const labelOf = new Map(all.map((n) => [n.id, `${n.data.kind} ${n.data.name}`]));
  const flowEdges: Edge[] = nodes.map((n) => ({
    id: `${n.parent ?? ROOT}-${n.id}`,
    source: n.parent ?? ROOT,
    target: n.id ?? '',
    focusable: false,
    ariaLabel: `${labelOf.get(n.parent ?? ROOT) ?? 'App'} owns ${labelOf.get(n.id ?? '') ?? 'an object'}`,
  }));
  const chosen = nodes.find((n) => n.id === selected);
  return (
    <div className="space-y-3">
      <div className="h-[28rem] rounded-md border border-zinc-200 dark:border-zinc-800" data-testid="resource-graph">
        <ReactFlow
          nodes={flowNodes}
          edges={flowEdges}
          nodeTypes={nodeTypes}
          fitView
          proOptions={{ hideAttribution: true }}
          nodesConnectable={false}
          nodesFocusable={false}
          edgesFocusable={false}
          disableKeyboardA11y
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      {chosen ? <NodeDetails node={chosen} /> : null}
    </div>
  );
}
