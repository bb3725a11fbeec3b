/**
 * A Flux `Kustomization` (kustomize.toolkit.fluxcd.io) as an svc Git App: the GitRepository it reads gives the URL
 * and branch, `path` the directory, `targetNamespace` the destination, `prune` and `suspend` the sync policy,
 * `images`, `namePrefix`, `components` and `postBuild.substitute` the render options, `healthCheckExprs` the custom
 * health checks (svc takes Flux's shape). Sources svc cannot read (OCIRepository, Bucket, ExternalArtifact) and
 * remote clusters (`kubeConfig`) make it unmapped.
 */

import type { GitSource, HealthCheck } from '../app-schema.ts';
import { repoURLProblem } from '../app-state.ts';
import { type MapContext, refOf } from './context.ts';
import { becameEntry, unmappedEntry } from './entry.ts';
import { fluxPath, gitOf, resolveRef } from './flux-source-ref.ts';
import { FieldLedger } from './ledger.ts';
import type { AppPayload, Doc, ImportEntry } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Maps a Kustomization. */
export function mapKustomization(doc: Doc, ctx: MapContext): ImportEntry {
  const object = refOf(doc);
  const l = new FieldLedger(doc);
  const blockers: string[] = [];
  l.metadataExtras('svc Apps carry no labels or annotations of yours');
  const git = gitSourceOf(l, object.namespace, ctx, blockers);
  if (l.get('spec.kubeConfig') !== undefined) {
    l.unsupported('spec.kubeConfig', 'not a cluster registered in svc');
    blockers.push(
      'it deploys to another cluster (spec.kubeConfig): register that cluster in svc, then create the App there',
    );
  }
  const namespace = (l.str('spec.targetNamespace') ?? object.namespace) || '';
  if (l.get('spec.targetNamespace') !== undefined) l.mapped('spec.targetNamespace', 'namespace');
  else if (namespace === '')
    blockers.push('no spec.targetNamespace and no namespace: an svc App deploys to one namespace');
  renderOptions(l, git);
  const checks = healthChecks(l);
  const sync = syncOf(l);
  unsupported(l);
  if (blockers.length > 0) return unmappedEntry(l, object, blockers.join('; '));
  const name = ctx.namer.take('App', object.name);
  const ref = resolveRef(l.get('spec.sourceRef'), object.namespace, ctx);
  if (!('blocker' in ref)) ctx.use(ref.kind, ref.namespace, ref.name, { kind: 'App', name });
  const app: AppPayload = { name, namespace, source: { type: 'Git', git }, sync_policy: sync };
  if (l.get('spec.targetNamespace') === undefined) {
    l.item('metadata.namespace', 'mapped', {
      to: 'namespace',
      note: 'no targetNamespace: objects without a namespace go to the Kustomization’s namespace',
    });
  }
  if (checks.length > 0) app.health = { checks };
  return becameEntry(l, object, object.name, { kind: 'App', name }, { app });
}

/** repoURL and branch from the GitRepository, path from `spec.path`. */
function gitSourceOf(
  l: FieldLedger,
  namespace: string | undefined,
  ctx: MapContext,
  blockers: string[],
): Partial<GitSource> & { repoURL: string } {
  const ref = resolveRef(l.get('spec.sourceRef'), namespace, ctx);
  const git: Partial<GitSource> & { repoURL: string } = { repoURL: '' };
  if ('blocker' in ref) {
    l.unsupported('spec.sourceRef', ref.blocker);
    blockers.push(ref.blocker);
  } else if (ref.kind !== 'GitRepository') {
    l.unsupported('spec.sourceRef', `svc reads manifests from Git only, not from a ${ref.kind}`);
    blockers.push(`its source is a ${ref.kind}: svc reads manifests from Git repositories only`);
  } else {
    const from = gitOf(ref.doc);
    if ('blocker' in from) blockers.push(from.blocker);
    else if (repoURLProblem(from.repoURL)) blockers.push(`GitRepository ${ref.name}: spec.url is not a remote Git URL`);
    else {
      git.repoURL = from.repoURL;
      git.branch = from.branch;
      l.mapped('spec.sourceRef', 'source.git.repoURL, source.git.branch', `from GitRepository ${ref.name}`);
    }
  }
  l.take('spec.sourceRef');
  const path = fluxPath(l.mapped('spec.path', 'source.git.path'));
  if (path) git.path = path;
  return git;
}

function renderOptions(l: FieldLedger, git: Partial<GitSource>): void {
  const kustomize: NonNullable<GitSource['kustomize']> = {};
  const images = l.mapped('spec.images', 'source.git.kustomize.images');
  if (Array.isArray(images)) kustomize.images = images.filter(isObject).map(imageOverride);
  const prefix = l.mapped('spec.namePrefix', 'source.git.kustomize.namePrefix');
  if (typeof prefix === 'string') kustomize.namePrefix = prefix;
  const components = l.mapped('spec.components', 'source.git.kustomize.components');
  if (Array.isArray(components)) kustomize.components = components.map(String);
  if (Object.keys(kustomize).length > 0) git.kustomize = kustomize;
  const substitute = l.mapped('spec.postBuild.substitute', 'source.git.substitution');
  if (isObject(substitute))
    git.substitution = Object.fromEntries(Object.entries(substitute).map(([k, v]) => [k, String(v)]));
  l.unsupported(
    'spec.postBuild.substituteFrom',
    'svc substitutes only the variables the App states (source.git.substitution)',
  );
}

/** Flux's `{name, newName, newTag, digest}` as `kustomize edit set image` writes it. */
function imageOverride(i: Record<string, unknown>): string {
  const name = String(i['name'] ?? '');
  const target = typeof i['newName'] === 'string' ? `${name}=${i['newName']}` : name;
  if (typeof i['digest'] === 'string') return `${target}@${i['digest']}`;
  return typeof i['newTag'] === 'string' ? `${target}:${i['newTag']}` : target;
}

function healthChecks(l: FieldLedger): HealthCheck[] {
  const exprs = l.mapped('spec.healthCheckExprs', 'health.checks', 'svc takes Flux’s healthCheckExprs shape');
  return Array.isArray(exprs) ? (exprs.filter(isObject) as unknown as HealthCheck[]) : [];
}

function syncOf(l: FieldLedger): NonNullable<AppPayload['sync_policy']> {
  const suspended = l.get('spec.suspend') === true;
  l.mapped('spec.suspend', 'sync_policy.automated', 'suspended: automated sync off');
  l.equivalent('spec.interval', 'svc checks the branch every minute, and at once on a push event');
  l.equivalent('spec.retryInterval', 'svc retries 30 s after an error');
  l.equivalent('spec.wait', 'svc assesses the health of every object it applies');
  const prune = l.mapped('spec.prune', 'sync_policy.prune') === true;
  return { automated: !suspended, prune, selfHeal: false };
}

function unsupported(l: FieldLedger): void {
  const why: Record<string, string> = {
    dependsOn: 'svc Apps sync independently: order them with sync waves inside one App',
    healthChecks: 'svc assesses the objects it applies, not others',
    timeout: 'svc bounds each sync itself',
    patches: 'put the patches in the kustomization file',
    nameSuffix: 'put nameSuffix in the kustomization file',
    commonMetadata: 'put labels and annotations in the kustomization file',
    decryption: 'register the age key as a sops secret store and set source.git.decryption.storeRef',
    serviceAccountName: 'svc applies with its own identity, scoped by role bindings',
    force: 'svc never deletes and recreates an object that cannot be changed',
    deletionPolicy: 'deleting an svc App deletes its objects',
    ignoreMissingComponents: 'a missing component fails the sync in svc',
  };
  for (const [field, note] of Object.entries(why)) l.unsupported(`spec.${field}`, note);
}
