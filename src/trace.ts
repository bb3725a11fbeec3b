/**
 * Tracing for the rest of svc: spans, and the W3C trace context carried on svc's own HTTP calls. Only the
 * OpenTelemetry API is used here; it is a no-op until src/trace-sdk.ts registers a provider (when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set), so a span costs a function call and nothing is recorded or sent otherwise.
 */
import { type Attributes, context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

export type { Attributes, Span } from '@opentelemetry/api';
export { SpanKind } from '@opentelemetry/api';

/** The instrumentation scope of every span svc makes. */
const SCOPE = 'svc';

/** Ends `span` as failed with `err` (its message, never the object: errors may name a URL, not a secret). */
function failed(span: Span, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  span.recordException(err instanceof Error ? err : message);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * Runs `run` inside a new span `name` (a child of the active span, if any) and ends the span when it settles; a
 * rejection marks the span failed and is passed on unchanged.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  run: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return trace.getTracer(SCOPE).startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      return await run(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Starts a span `name` whose parent is the trace context of incoming `headers` (traceparent), for a server. */
export function startServerSpan(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  attributes: Attributes,
): Span {
  const parent = propagation.extract(context.active(), headers);
  return trace.getTracer(SCOPE).startSpan(name, { attributes, kind: SpanKind.SERVER }, parent);
}

/** Calls `run` with `span` active: what `run` starts, and the async work it leads to, are its children. */
export function withSpan<T>(span: Span, run: () => T): T {
  return context.with(trace.setSpan(context.active(), span), run);
}

/** Ends a server span with its answer's status (5xx: failed, as the HTTP semantic conventions say). */
export function endServerSpan(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** `headers` plus the active trace context (traceparent, tracestate): what svc's own outbound calls send. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  const carrier: Record<string, string> = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The active span's trace id, when a trace is being recorded (undefined when tracing is off). */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  return span.spanContext().traceId;
}
