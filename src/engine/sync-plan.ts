/**
 * The plan of a sync: which rendered objects are hooks (run around the apply, never part of the inventory, the drift
 * or the App's resources) and which are applied, in which waves, and in which order. Pure; the operator runs the plan
 * (src/operator/stages/waves.ts).
 *
 * - **Waves** (`cd.svc.space/sync-wave: "<int>"`, default 0): the applied objects go out wave by wave, lowest first;
 *   within a wave the apply ranks hold (Namespaces, then CRDs, then the rest: ./desired.ts), since `prepareObjects`
 *   ordered the objects and the plan keeps that order.
 * - **Hooks** (`cd.svc.space/hook: PreSync|Sync|PostSync|SyncFail|Skip`, several comma-separated): PreSync hooks run
 *   before anything is applied, Sync hooks in their wave with the applied objects, PostSync hooks after every wave
 *   is healthy, SyncFail hooks when the sync failed. Hooks of a phase run wave by wave too. `Skip` is never applied.
 * - **Delete policy** (`cd.svc.space/hook-delete-policy: BeforeHookCreation|HookSucceeded|HookFailed`, several
 *   comma-separated; default BeforeHookCreation): the hook's previous run is deleted before it is created again; it
 *   is deleted once it succeeded / failed.
 * - **Aliases**: Argo CD's names (`argocd.argoproj.io/sync-wave`, `/hook`, `/hook-delete-policy`) are read when svc's
 *   own are absent; so are Helm's hooks: `helm.sh/hook` pre-install/pre-upgrade → PreSync, post-install/post-upgrade
 *   → PostSync, `helm.sh/hook-weight` → the wave, `helm.sh/hook-delete-policy` before-hook-creation/hook-succeeded/
 *   hook-failed; `post-delete` → PostDelete. A Helm hook for an event svc does not have (pre-delete,
 *   pre/post-rollback, test) is not applied.
 * - **PostDelete** hooks (`cd.svc.space/hook: PostDelete`) are never part of a sync: they run when the App is
 *   deleted, after everything it applied is gone (src/operator/stages/post-delete.ts), wave by wave.
 */
import { SYNC_PHASES } from '../core/app-names.ts';
import type { AnyObject } from '../kube/index.ts';
import { ManifestError } from '../render/index.ts';

export const SYNC_WAVE_ANNOTATION = 'cd.svc.space/sync-wave';
export const HOOK_ANNOTATION = 'cd.svc.space/hook';
export const HOOK_DELETE_POLICY_ANNOTATION = 'cd.svc.space/hook-delete-policy';

/** Argo CD's annotations, read when svc's own are absent. */
const ARGO = {
  wave: 'argocd.argoproj.io/sync-wave',
  hook: 'argocd.argoproj.io/hook',
  policy: 'argocd.argoproj.io/hook-delete-policy',
} as const;
/** Helm's hook annotations. */
const HELM = { hook: 'helm.sh/hook', weight: 'helm.sh/hook-weight', policy: 'helm.sh/hook-delete-policy' } as const;

export const HOOK_PHASES = SYNC_PHASES;
export type HookPhase = (typeof HOOK_PHASES)[number];
/** A hook's phase: one of a sync's, or PostDelete (run on the App's deletion). */
export type HookKind = HookPhase | 'PostDelete';
export const DELETE_POLICIES = ['BeforeHookCreation', 'HookSucceeded', 'HookFailed'] as const;
export type DeletePolicy = (typeof DELETE_POLICIES)[number];

/** Helm's hook events svc runs, by the phase they map onto; every other Helm hook event is not applied. */
const HELM_PHASES: Readonly<Record<string, HookKind>> = {
  'pre-install': 'PreSync',
  'pre-upgrade': 'PreSync',
  'post-install': 'PostSync',
  'post-upgrade': 'PostSync',
  'post-delete': 'PostDelete',
};
const HELM_POLICIES: Readonly<Record<string, DeletePolicy>> = {
  'before-hook-creation': 'BeforeHookCreation',
  'hook-succeeded': 'HookSucceeded',
  'hook-failed': 'HookFailed',
};

/** One hook to run: the object, its phase and wave, and when it is deleted. */
export interface Hook {
  object: AnyObject;
  phase: HookKind;
  wave: number;
  deletePolicies: DeletePolicy[];
}

/** One wave of a phase: the objects applied in it (Sync phase only) and the hooks run in it. */
export interface Wave {
  wave: number;
  objects: AnyObject[];
  hooks: Hook[];
}

/** What a sync does, in order: PreSync waves, Sync waves, PostSync waves; SyncFail waves on failure. */
export interface SyncPlan {
  /** The objects applied (the App's desired set: inventory, drift, health), in apply order. */
  objects: AnyObject[];
  phases: Record<HookPhase, Wave[]>;
  /** The PostDelete hooks, wave by wave: run on the App's deletion, never by a sync. */
  postDelete: Wave[];
  /** Hook objects never applied (Skip, Helm hooks of other events). */
  skipped: AnyObject[];
}

/** What the annotations say an object is: applied (`hook` undefined), a hook of some phases, or never applied. */
interface Role {
  phases: HookKind[];
  skip: boolean;
  /** True for a Helm hook (its weight is its wave). */
  helm: boolean;
}

const splitList = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const describe = (o: AnyObject): string => `${o.kind} ${o.metadata.name}`;

/** The role given by svc's (or Argo CD's) hook annotation `value`. */
function ownRole(o: AnyObject, value: string): Role {
  const phases: HookKind[] = [];
  let skip = false;
  for (const p of splitList(value)) {
    if ((HOOK_PHASES as readonly string[]).includes(p) || p === 'PostDelete') phases.push(p as HookKind);
    else if (p === 'Skip') skip = true;
    else throw new ManifestError(describe(o), `hook "${p}" is not one of ${HOOK_PHASES.join(', ')}, PostDelete, Skip`);
  }
  return { phases: [...new Set(phases)], skip: skip && phases.length === 0, helm: false };
}

/** The role of `o` from its hook annotation (svc's, else Argo CD's, else Helm's). */
function roleOf(o: AnyObject): Role {
  const a = o.metadata.annotations ?? {};
  const own = a[HOOK_ANNOTATION] ?? a[ARGO.hook];
  if (own !== undefined) return ownRole(o, own);
  const helm = a[HELM.hook];
  if (helm === undefined) return { phases: [], skip: false, helm: false };
  const events = splitList(helm);
  // crd-install (Helm 2) is an ordinary object: CRDs are applied first anyway.
  if (events.every((e) => e === 'crd-install')) return { phases: [], skip: false, helm: false };
  const phases = [...new Set(events.map((e) => HELM_PHASES[e]).filter((p): p is HookKind => p !== undefined))];
  return { phases, skip: phases.length === 0, helm: true };
}

/** The wave of `o`: its sync-wave annotation (svc's, else Argo CD's), else a Helm hook's weight, else 0. */
export function waveOf(o: AnyObject, helmHook = false): number {
  const a = o.metadata.annotations ?? {};
  const [name, value] =
    a[SYNC_WAVE_ANNOTATION] !== undefined
      ? [SYNC_WAVE_ANNOTATION, a[SYNC_WAVE_ANNOTATION]]
      : a[ARGO.wave] !== undefined
        ? [ARGO.wave, a[ARGO.wave]]
        : helmHook && a[HELM.weight] !== undefined
          ? [HELM.weight, a[HELM.weight]]
          : [undefined, undefined];
  if (value === undefined) return 0;
  const trimmed = value.trim();
  if (!/^[+-]?\d{1,9}$/.test(trimmed)) throw new ManifestError(describe(o), `${name} "${value}" is not an integer`);
  return Number(trimmed);
}

/**
 * The wave of a live or applied object, for ordering deletions and recording results: `waveOf`, or 0 when its
 * annotation cannot be read (a render refuses such an object; a live one may still carry one, and its delete says).
 */
export function waveOrZero(o: AnyObject): number {
  try {
    return waveOf(o);
  } catch {
    return 0;
  }
}

/** The delete policies of a hook (default BeforeHookCreation, as in Argo CD and Helm). */
function policiesOf(o: AnyObject): DeletePolicy[] {
  const a = o.metadata.annotations ?? {};
  const own = a[HOOK_DELETE_POLICY_ANNOTATION] ?? a[ARGO.policy];
  const helm = a[HELM.policy];
  const out: DeletePolicy[] = [];
  if (own !== undefined) {
    for (const p of splitList(own)) {
      if (!(DELETE_POLICIES as readonly string[]).includes(p)) {
        throw new ManifestError(describe(o), `hook delete policy "${p}" is not one of ${DELETE_POLICIES.join(', ')}`);
      }
      out.push(p as DeletePolicy);
    }
  } else if (helm !== undefined) {
    for (const p of splitList(helm)) {
      const mapped = HELM_POLICIES[p];
      if (!mapped) throw new ManifestError(describe(o), `helm.sh/hook-delete-policy "${p}" is not known`);
      out.push(mapped);
    }
  }
  return out.length > 0 ? [...new Set(out)] : ['BeforeHookCreation'];
}

/** Groups items by wave, lowest wave first (stable within a wave). */
function byWave<T>(items: readonly T[], waveOfItem: (t: T) => number): Map<number, T[]> {
  const waves = new Map<number, T[]>();
  for (const wave of [...new Set(items.map(waveOfItem))].sort((a, b) => a - b)) waves.set(wave, []);
  for (const t of items) waves.get(waveOfItem(t))?.push(t);
  return waves;
}

/**
 * Plans the sync of `objects` (prepared by `prepareObjects`, in apply order). Throws ManifestError for an annotation
 * that cannot be read (a wave that is not an integer, an unknown hook phase or delete policy).
 */
export function planSync(objects: readonly AnyObject[]): SyncPlan {
  const applied: { object: AnyObject; wave: number }[] = [];
  const hooks: Hook[] = [];
  const skipped: AnyObject[] = [];
  for (const object of objects) {
    const role = roleOf(object);
    if (role.skip) skipped.push(object);
    else if (role.phases.length === 0) applied.push({ object, wave: waveOf(object) });
    else {
      const wave = waveOf(object, role.helm);
      const deletePolicies = policiesOf(object);
      for (const phase of role.phases) hooks.push({ object, phase, wave, deletePolicies });
    }
  }
  const wavesOf = (phase: HookKind): Wave[] => {
    const own = hooks.filter((h) => h.phase === phase);
    const items = [...(phase === 'Sync' ? applied : []), ...own];
    return [...byWave(items, (i) => i.wave)].map(([wave, list]) => ({
      wave,
      objects: list.filter((i): i is (typeof applied)[number] => !('phase' in i)).map((i) => i.object),
      hooks: list.filter((i): i is Hook => 'phase' in i),
    }));
  };
  const phases = {} as Record<HookPhase, Wave[]>;
  for (const phase of HOOK_PHASES) phases[phase] = wavesOf(phase);
  return { objects: applied.map((a) => a.object), phases, postDelete: wavesOf('PostDelete'), skipped };
}

/** The objects an App applies of `objects` (prepared): everything but hooks and skipped objects. */
export function appliedObjects(objects: readonly AnyObject[]): AnyObject[] {
  return planSync(objects).objects;
}

/** True when the plan needs more than one plain apply: hooks to run, or more than one wave. */
export function isStaged(plan: SyncPlan): boolean {
  return HOOK_PHASES.some((p) => plan.phases[p].some((w) => w.hooks.length > 0)) || plan.phases.Sync.length > 1;
}

/** `Kind name` of a hook, and its phase: `PreSync Job migrate`. */
export function describeHook(h: Hook): string {
  return `${h.phase} ${describe(h.object)}`;
}
