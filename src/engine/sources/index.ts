/**
 * The source drivers, keyed by `source.type`. The keys are exactly the deployable source types of the App state
 * module (the type below makes the compiler check it; a unit test checks it at run time too), so the API accepts
 * exactly the sources the operator can deploy.
 */
import type { AppResource } from '../../core/app-schema.ts';
import { type DeployableSourceType, isDeployableSourceType, sourceTypeProblem } from '../../core/app-state.ts';
import { InputError } from '../../core/errors.ts';
import { CatalogDriver, type CatalogDriverDeps } from './catalog.ts';
import { GitDriver, type GitDriverDeps } from './git.ts';
import { HelmChartDriver, type HelmChartDriverDeps } from './helm/driver.ts';
import { ImageDriver, type ImageDriverDeps } from './image.ts';
import type { SourceDriver } from './types.ts';

export { type CatalogDriverDeps, type CatalogLookup, catalogSourceOf } from './catalog.ts';
export { freshness, GitDriver, type GitDriverDeps, gitGuard, gitHostOf, gitSourceOf, orgRemote } from './git.ts';
export { type GitLocation, type GitTree, GitTreeReader } from './git-tree.ts';
export {
  HelmChartDriver,
  type HelmChartDriverDeps,
  helmChartSourceOf,
  type SourceAccessLookup,
} from './helm/driver.ts';
export { ImageDriver, type ImageDriverDeps, imageSourceOf, keptDigest } from './image.ts';
export { REGISTRY_LOOKUP_TTL_MS, RegistryLookup } from './registry-lookup.ts';
export type { RenderTarget, ResolvedSource, ResolveRequest, SourceDriver } from './types.ts';

/** One driver per deployable source type. */
export type SourceDrivers = Readonly<Record<DeployableSourceType, SourceDriver>>;

/** The drivers of this build. */
export function sourceDrivers(deps: {
  git: GitDriverDeps;
  image: ImageDriverDeps;
  helmChart: HelmChartDriverDeps;
  catalog?: CatalogDriverDeps;
}): SourceDrivers {
  const Git = new GitDriver(deps.git);
  const HelmChart = new HelmChartDriver(deps.helmChart);
  return {
    Git,
    Image: new ImageDriver(deps.image),
    HelmChart,
    // A template makes a Git or HelmChart source: the Catalog driver hands it to those drivers.
    Catalog: new CatalogDriver(deps.catalog ?? {}, { Git, HelmChart }),
  };
}

/** The driver of the App's source type; InputError (a stall: the spec cannot work) when there is none. */
export function driverFor(drivers: SourceDrivers, app: AppResource): SourceDriver {
  const type = app.spec.source.type;
  if (!isDeployableSourceType(type)) {
    throw new InputError(sourceTypeProblem(type) ?? `source.type ${type} has no driver`);
  }
  return drivers[type];
}
