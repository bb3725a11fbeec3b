import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { activeTraceId, inSpan, withTraceHeaders } from './trace.ts';
import { startTracing } from './trace-sdk.ts';

describe('tracing while OTEL_EXPORTER_OTLP_ENDPOINT is unset', () => {
  it('starts nothing: no SDK, no provider beyond the API’s no-op', async () => {
    expect(await startTracing('server', { OTEL_SERVICE_NAME: 'svc-test' })).toBeUndefined();
    expect(await startTracing('operator', { OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
    expect(trace.getTracer('svc').startSpan('probe').isRecording()).toBe(false);
  });

  it('runs spans’ work unchanged, records no trace id and sends no traceparent', async () => {
    const seen = await inSpan('work', { k: 'v' }, async () => ({
      traceId: activeTraceId(),
      headers: withTraceHeaders({ authorization: 'Bearer x' }),
    }));
    expect(seen).toEqual({ traceId: undefined, headers: { authorization: 'Bearer x' } });
    await expect(inSpan('failing', {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
