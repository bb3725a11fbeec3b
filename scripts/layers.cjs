/* svc's layers, read by .dependency-cruiser.cjs (the check) and scripts/layer-table.ts (ARCHITECTURE.md's table). */

/**
 * The layers: each with what it may import besides itself, and why. ARCHITECTURE.md's table is generated from this
 * (`node scripts/layer-table.ts --write`; a unit test fails when it is stale).
 */
/** Cross-cutting modules every layer above them may use: the logger and the span helpers. */
const CROSS_CUTTING = ['log\\.ts', 'trace\\.ts'];

const LAYERS = {
  core: { may: [], why: 'App schema and state rules, errors, names, permissions, events: pure, no I/O, used by all' },
  'log\\.ts': { may: ['core'], why: 'the one logger (pino)' },
  'trace\\.ts': {
    may: [],
    why: 'spans and the trace context over the OpenTelemetry API (a no-op until the SDK starts)',
  },
  'trace-sdk\\.ts': { may: [], why: 'the OpenTelemetry SDK and OTLP exporter, started by a role when configured' },
  kube: {
    may: ['core', ...CROSS_CUTTING],
    why: 'the one Kubernetes client: connect, objects, informers, leases, errors',
  },
  git: { may: ['core', ...CROSS_CUTTING], why: 'the git binary: repository cache, fetch, checkout' },
  net: {
    may: ['core', ...CROSS_CUTTING],
    why: "outbound calls on a user's behalf: the SSRF guard and its policy",
  },
  registry: { may: ['core', ...CROSS_CUTTING, 'net'], why: 'the OCI distribution client' },
  secrets: { may: ['core', ...CROSS_CUTTING, 'net'], why: 'sealing at rest and the secret-store providers' },
  internal: { may: ['core', 'registry'], why: 'the operator↔server channel: its contract (types and paths) only' },
  'config\\.ts': { may: ['core', 'kube', 'net', 'render'], why: 'every setting, parsed once at start' },
  'dev-secrets\\.ts': { may: ['core', 'config\\.ts'], why: 'the generated secrets of a development data directory' },
  render: {
    may: ['core', ...CROSS_CUTTING, 'git', 'internal'],
    why: 'renderers (raw, kustomize, helm, image, sops): files or a spec in, plain objects out; never a cluster',
  },
  engine: {
    may: ['core', ...CROSS_CUTTING, 'config\\.ts', 'kube', 'git', 'net', 'registry', 'secrets', 'internal', 'render'],
    why: 'what the operator and the API both compute: source drivers, desired set and hash, apply, inventory, health, diff, tree',
  },
  operator: {
    may: [
      'core',
      ...CROSS_CUTTING,
      'config\\.ts',
      'kube',
      'git',
      'net',
      'registry',
      'secrets',
      'internal',
      'render',
      'engine',
      'clusters',
    ],
    why: 'the controller loop: queue, reconcile stages, live caches, push receiver; no database, no API',
  },
  store: {
    may: ['core', ...CROSS_CUTTING, 'config\\.ts', 'secrets', 'registry'],
    why: 'the database (Kysely on SQLite or PostgreSQL), one module per table group, migrations',
  },
  auth: { may: ['core', ...CROSS_CUTTING, 'config\\.ts', 'store'], why: 'sessions, API keys, RBAC (canI)' },
  clusters: {
    may: ['core', ...CROSS_CUTTING, 'config\\.ts', 'kube', 'net'],
    why: 'registered clusters: access, probes, shell pods',
  },
  incidents: {
    may: ['core', ...CROSS_CUTTING, 'config\\.ts', 'store'],
    why: 'incident detection from the App cache',
  },
  webhooks: {
    may: ['core', ...CROSS_CUTTING, 'config\\.ts', 'net', 'secrets', 'store'],
    why: 'outbound webhook deliveries: signing, dispatch, retries',
  },
  background: {
    may: ['core', ...CROSS_CUTTING, 'config\\.ts', 'secrets', 'store', 'incidents', 'webhooks'],
    why: "the server process's background jobs (delivery dispatcher, incident detector)",
  },
  api: {
    may: [
      'core',
      ...CROSS_CUTTING,
      'config\\.ts',
      'kube',
      'git',
      'net',
      'registry',
      'secrets',
      'internal',
      'render',
      'engine',
      'store',
      'auth',
      'clusters',
      'incidents',
      'webhooks',
      'background',
    ],
    why: 'the REST API: routes, schemas, use-cases (authorize → act + audit → present); never the operator',
  },
  mcp: {
    may: ['core', ...CROSS_CUTTING, 'config\\.ts', 'auth', 'store', 'engine', 'api'],
    why: "the agents' endpoint: tools over the API's use-cases; the API never imports it",
  },
  'server\\.ts': { may: ['api', 'mcp'], why: 'joins the API and MCP into the HTTP server of svc server and svc start' },
  client: { may: ['core'], why: 'the typed REST client generated from the OpenAPI document (CLI and web UI)' },
};

module.exports = { LAYERS };
