/**
 * A real OTLP receiver: the OpenTelemetry Collector built by scripts/build-binaries.sh (`otelcol`: the OTLP receiver
 * and the file exporter), listening for OTLP over HTTP on a free loopback port and writing every span it receives
 * to a file as OTLP JSON, one export request per line. Tests read the spans back from that file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binary } from './paths.ts';
import { freePort } from './ports.ts';
import { makeTempDir, removeTempDir, startProcess, waitUntil } from './process.ts';

/** One attribute value as OTLP JSON writes it (only the kinds svc sends). */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

/** One received span, flattened: its service (resource `service.name`) and its attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

export interface OtelCollector {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT holds for a process exporting to it: `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  stop(): Promise<void>;
}

/** The plain value of an OTLP attribute. */
function plain(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue ?? '';
}

type KeyValue = { key: string; value: AnyValue };
interface ExportLine {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: (Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: KeyValue[] })[] }[];
  }[];
}

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, plain(a.value)]));

/** Parses the file exporter's output: one OTLP JSON export request per line. */
function parseSpans(text: string): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    for (const rs of (JSON.parse(line) as ExportLine).resourceSpans ?? []) {
      const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          spans.push({
            service,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            name: s.name,
            kind: s.kind,
            attributes: attributesOf(s.attributes),
          });
        }
      }
    }
  }
  return spans;
}

/**
 * Starts the collector on a free port, or on `port` (4318 is where an OTLP exporter sends by default: a test that
 * nothing is sent listens there); resolves once its OTLP/HTTP receiver answers.
 */
export async function startOtelCollector(options: { port?: number } = {}): Promise<OtelCollector> {
  const dir = makeTempDir('otelcol');
  const port = options.port ?? (await freePort());
  const out = join(dir, 'spans.jsonl');
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'receivers:',
      '  otlp:',
      '    protocols:',
      '      http:',
      `        endpoint: 127.0.0.1:${port}`,
      'exporters:',
      '  file:',
      `    path: ${out}`,
      '    flush_interval: 100ms',
      'service:',
      '  telemetry:',
      '    metrics:',
      '      level: none',
      '  pipelines:',
      '    traces:',
      '      receivers: [otlp]',
      '      exporters: [file]',
      '',
    ].join('\n'),
  );
  const proc = startProcess('otelcol', binary('otelcol', 'otelcol'), [`--config=file:${config}`], { logDir: dir });
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await proc.stop();
    removeTempDir(dir);
  };
  try {
    // An empty export request: the receiver answers 200 once it listens.
    await waitUntil(
      async () =>
        (
          await fetch(`${endpoint}/v1/traces`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          }).catch(() => undefined)
        )?.ok === true,
      { what: 'the OTLP receiver of the collector', process: proc, timeoutMs: 30_000 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    endpoint,
    spans: () => (existsSync(out) ? parseSpans(readFileSync(out, 'utf8')) : []),
    stop,
  };
}
