/** Renderers: one per source kind, each returning plain Kubernetes objects. */

export { RenderCache, type RenderInput, renderKey, sourceKey } from './cache.ts';
export { type ArchiveBounds, extractChartArchive } from './chart-archive.ts';
export { detectManifestType, type ManifestKind } from './detect.ts';
export {
  finishObjects,
  type GitRenderRequest,
  type RenderResult,
  renderGitSource,
  renderManifests,
} from './git-source.ts';
export { type ChartCapabilities, type ChartRenderRequest, renderChart } from './helm-chart.ts';
export {
  AUTOSCALING_DEFAULTS,
  DEFAULT_PORT,
  DEFAULT_RESOURCES,
  type ImageRenderRequest,
  imageURL,
  renderedLabels,
  renderImageWorkload,
} from './image.ts';
export { defaultNamespace, groupOf, type ScopeLookup } from './namespaces.ts';
export { parseManifests } from './parse.ts';
export {
  type Decrypt,
  isEncryptedObject,
  SECRET_DIGEST_ANNOTATION,
  sopsDecryptor,
  withSecretDigests,
} from './sops.ts';
export { substitute } from './substitute.ts';
export { findTool, type RenderTool, type ToolPaths, toolPaths } from './tools.ts';
export { type KubeObject, ManifestError } from './types.ts';
