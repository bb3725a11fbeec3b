/**
 * The OpenTelemetry SDK of a long-running role: started only when OTEL_EXPORTER_OTLP_ENDPOINT is set, it exports
 * every span over OTLP (HTTP, protobuf) in batches. Without the variable the SDK is never loaded, and the API that
 * src/trace.ts uses stays a no-op: nothing is recorded, no connection is made.
 */

/** The role's service name when OTEL_SERVICE_NAME is unset (`svc start` runs both roles: `svc`). */
const DEFAULT_SERVICE: Record<'start' | 'server' | 'operator', string> = {
  start: 'svc',
  server: 'svc-api',
  operator: 'svc-operator',
};

/** Flushes the spans still buffered and stops exporting. */
export type StopTracing = () => Promise<void>;

/**
 * Starts tracing for `role` when `env` names an OTLP endpoint (the exporter reads the standard OTEL_EXPORTER_OTLP_*
 * variables itself: endpoint, headers, timeout); answers the function that flushes and stops it, or undefined when
 * tracing stays off.
 */
export async function startTracing(
  role: 'start' | 'server' | 'operator',
  env: NodeJS.ProcessEnv,
): Promise<StopTracing | undefined> {
  if (!env['OTEL_EXPORTER_OTLP_ENDPOINT'] && !env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) return undefined;
  // Loaded only now: a process that does not trace never pays for the SDK.
  const [api, core, hooks, sdk, exporter, resources, semconv] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const serviceName = env['OTEL_SERVICE_NAME'] || DEFAULT_SERVICE[role];
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new exporter.OTLPTraceExporter() })],
  });
  // Spans follow the async call chain (AsyncLocalStorage); the trace context crosses processes as `traceparent`.
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  return () => provider.shutdown();
}
