/**
 * svc's layering, checked by `npm test` (scripts/check-layers.sh) and explained in ARCHITECTURE.md. Each layer may
 * import only the layers listed for it (and itself); anything else is a violation, and so is any cycle.
 *
 *   core  ←  log · kube · git · net · registry · secrets · internal (the operator↔server contract)
 *   trace (spans over the OpenTelemetry API) and trace-sdk (its exporter) import nothing of svc; every layer that may
 *   log may also trace (tracing is cross-cutting, as logging is).
 *         ←  config · render  ←  engine  ←  operator
 *         ←  store  ←  auth · clusters · incidents · webhooks · background  ←  api  ←  mcp  ←  server.ts · cli roles
 *   cli/client and web/src: core and the generated API client only.
 *
 * The layers and why each exists are in scripts/layers.cjs. A rule you need to break is a design to change, in the
 * open (CONTRIBUTING.md), not an exception added here.
 */

/** Paths below src/ a layer may import, as one regular expression over `src/<path>`. */
const allowed = (...layers) => `^src/(${layers.join('|')})(/|$)`;

const { LAYERS } = require('./scripts/layers.cjs');

const layerRules = Object.entries(LAYERS).map(([layer, { may: deps }]) => ({
  name: `layer-${layer.replace(/\\/g, '')}`,
  comment: `src/${layer.replace(/\\/g, '')} may import only ${deps.length ? deps.map((d) => d.replace(/\\/g, '')).join(', ') : 'itself'}`,
  severity: 'error',
  from: { path: `^src/${layer}(/|$)` },
  to: { path: '^src/', pathNot: allowed(layer, ...deps) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'cli-client',
      comment: 'the command-line client talks to svc only through the REST API: core and the generated client',
      severity: 'error',
      from: { path: '^src/cli/client/' },
      to: { path: '^src/', pathNot: '^src/(cli/client|core|client)/' },
    },
    {
      name: 'web',
      comment: 'the web UI talks to svc only through the REST API: core and the generated client',
      severity: 'error',
      from: { path: '^web/src/' },
      to: { path: '^src/', pathNot: '^src/(core|client)/' },
    },
    {
      name: 'no-cycles',
      comment: 'no module may reach itself through its imports',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    // Type-only imports count: a type names a dependency as much as a value does.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: require('node:path').join(__dirname, 'tsconfig.json') },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
