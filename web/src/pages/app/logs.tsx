/**
 * Logs of one of the App's Pods (GET …/logs), streamed while "Follow" is on. The Pod and container are in the URL.
 * Lines are shown as text; at most the last 5,000 are kept on screen.
 */
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { useTree } from '../../api/apps.ts';
import { svc } from '../../api/client.ts';
import { Empty, ErrorState, Spinner } from '../../components/ui/feedback.tsx';
import { Checkbox, Select } from '../../components/ui/field.tsx';

const KEEP = 5000;

export function LogsTab({ namespace, name }: { namespace: string; name: string }) {
  const tree = useTree(namespace, name);
  const search = useSearch({ from: '/apps/$namespace/$name' });
  const navigate = useNavigate({ from: '/apps/$namespace/$name' });
  const [follow, setFollow] = useState(true);
  const [lines, setLines] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const box = useRef<HTMLPreElement>(null);
  const pods = (tree.data?.nodes ?? []).filter((n) => n.kind === 'Pod');
  const pod = pods.find((p) => p.name === search.pod) ?? pods[0];
  const containers = (pod?.info?.['containers'] ?? []) as string[];
  const container = containers.includes(search.container ?? '') ? search.container : containers[0];

  const podName = pod?.name;
  useEffect(() => {
    if (!podName) return;
    const abort = new AbortController();
    setLines([]);
    setError(undefined);
    void (async () => {
      try {
        const body = await svc.GET('/api/v1/apps/{namespace}/{name}/logs', {
          params: {
            path: { namespace, name },
            query: {
              pod: podName,
              tail: '500',
              follow: follow ? 'true' : 'false',
              ...(container ? { container } : {}),
            },
          },
          headers: { accept: 'text/plain, application/json' },
          parseAs: 'stream',
          signal: abort.signal,
        });
        const reader = body?.getReader();
        const decoder = new TextDecoder();
        let rest = '';
        for (;;) {
          const chunk = await reader?.read();
          if (!chunk || chunk.done) break;
          const text = rest + decoder.decode(chunk.value, { stream: true });
          const parts = text.split('\n');
          rest = parts.pop() ?? '';
          setLines((old) => [...old, ...parts].slice(-KEEP));
        }
        if (rest) setLines((old) => [...old, rest].slice(-KEEP));
      } catch (err) {
        if (!abort.signal.aborted) setError(err);
      }
    })();
    return () => abort.abort();
  }, [namespace, name, podName, container, follow]);

  // Follows the end of the log as lines arrive.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every new batch of lines
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines]);

  if (tree.error) return <ErrorState error={tree.error} />;
  if (!tree.data) return <Spinner />;
  if (!pod) return <Empty title="No pods">This app runs no pods right now.</Empty>;
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <div className="w-72">
          <Select
            aria-label="Pod"
            value={pod.name}
            onChange={(e) => void navigate({ search: (s) => ({ ...s, pod: e.target.value, container: undefined }) })}
          >
            {pods.map((p) => (
              <option key={p.id}>{p.name}</option>
            ))}
          </Select>
        </div>
        <div className="w-48">
          <Select
            aria-label="Container"
            value={container ?? ''}
            onChange={(e) => void navigate({ search: (s) => ({ ...s, container: e.target.value }) })}
          >
            {containers.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </Select>
        </div>
        <Checkbox label="Follow" checked={follow} onChange={(e) => setFollow(e.target.checked)} />
      </div>
      {error ? <ErrorState error={error} title="Could not read the logs" /> : null}
      <section aria-label={`Logs of ${pod.name}`}>
        {/* A scrollable region must be reachable from the keyboard (WCAG 2.1.1). */}
        <pre
          ref={box}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: keyboard scrolling of the log
          tabIndex={0}
          data-testid="log-lines"
          className="h-[28rem] overflow-auto rounded-md bg-zinc-950 p-3 font-mono text-xs text-zinc-100"
        >
          {lines.length === 0 && !error ? 'Waiting for log lines…' : lines.join('\n')}
        </pre>
      </section>
    </div>
  );
}
