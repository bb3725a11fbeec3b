/**
 * What an adopted workload becomes (contract §4.2 rule 14): the image source whose rendering is the workload's own
 * pod template, so the operator's forced server-side apply takes the fields over without changing the template
 * (no new ReplicaSet, no Pod recreated). Pure.
 *
 * A workload can be taken over only when the image renderer can describe it: a Deployment (the renderer renders
 * no StatefulSet), a selector of exactly the rendered labels (a selector is immutable), and one container named
 * after the workload (containers merge by name: another name would add a second container beside it). Its image,
 * replicas, port, literal and Secret env values, resources, readiness probe and pull Secret are copied; an image
 * on a registered registry's host is made relative to it (`registryRef`), so its credentials apply. A workload
 * running an image by tag is adopted too, but its Pods roll once to the digest (the renderer always pins one).
 */
import type { ImageSource } from '../../core/app-schema.ts';
import { renderedLabels } from '../../render/index.ts';
import type { RegistryRecord } from '../../store/registries.ts';
import type { ContainerLike, Workload } from '../kube/apps-repo.ts';

/** Whether the workload's selector uses exactly the rendered label keys with the rendered values. */
export function selectorMatches(w: Workload): boolean {
  const want = renderedLabels(w.name);
  const keys = Object.keys(w.selector);
  return (
    keys.length > 0 && keys.every((k) => want[k] === w.selector[k]) && Object.keys(want).every((k) => k in w.selector)
  );
}

/** Why the workload cannot be adopted, or undefined when it can. */
export function adoptionProblem(w: Workload): string | undefined {
  if (w.kind !== 'Deployment') return `${w.kind}s cannot be adopted: an image App renders a Deployment`;
  if (!selectorMatches(w)) {
    return `selector must match the rendered labels ${JSON.stringify(renderedLabels(w.name))}`;
  }
  const containers = w.pod.containers;
  if (containers.length !== 1 || containers[0]?.name !== w.name) {
    return `must run exactly one container, named ${w.name} (the image App names its container after itself)`;
  }
  return undefined;
}

/**
 * Splits an image reference into repository and tag: `repo:tag`, `repo` (tag latest), and a digest reference
 * `repo[:tag]@sha256:…`, whose digest becomes the tag (the App pins it).
 */
export function splitImage(image: string): { repository: string; tag: string } {
  const at = image.indexOf('@');
  if (at >= 0) return { repository: withoutTag(image.slice(0, at)), tag: image.slice(at + 1) };
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash
    ? { repository: image.slice(0, colon), tag: image.slice(colon + 1) }
    : { repository: image, tag: 'latest' };
}

function withoutTag(name: string): string {
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  return colon > slash ? name.slice(0, colon) : name;
}

/** The image source that renders the (adoptable) workload `w`; `registries` are the org's. */
export function adoptedImageSource(w: Workload, registries: readonly RegistryRecord[]): ImageSource {
  const c = w.pod.containers[0] as ContainerLike;
  const { repository, tag } = splitImage(c.image ?? '');
  const registry = registries.find((r) => repository.startsWith(`${r.host}/`));
  const pullSecret = w.pod.imagePullSecrets?.[0]?.name;
  const source: ImageSource = {
    ...(registry
      ? { registryRef: registry.name, repository: repository.slice(registry.host.length + 1) }
      : { repository }),
    tag,
    tagPolicy: 'Pinned',
    ...(pullSecret ? { pullSecretRef: pullSecret } : {}),
    workload: {
      replicas: w.replicas,
      ...(c.ports?.[0] ? { port: c.ports[0].containerPort } : {}),
      ...envOf(c),
      resources: {
        ...(c.resources?.requests ? { requests: pick(c.resources.requests) } : {}),
        ...(c.resources?.limits ? { limits: pick(c.resources.limits) } : {}),
      },
      probe: probeOf(c),
    },
  };
  return source;
}

function pick(list: { cpu?: string; memory?: string }): { cpu?: string; memory?: string } {
  return {
    ...(list.cpu !== undefined ? { cpu: String(list.cpu) } : {}),
    ...(list.memory !== undefined ? { memory: String(list.memory) } : {}),
  };
}

type EnvVar = NonNullable<NonNullable<ImageSource['workload']>['env']>[number];

function envOf(c: ContainerLike): { env?: EnvVar[] } {
  const env = (c.env ?? []).flatMap((e): EnvVar[] => {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) return [{ name: e.name, secretRef: { name: ref.name, key: ref.key } }];
    return e.valueFrom ? [] : [{ name: e.name, value: e.value ?? '' }];
  });
  return env.length > 0 ? { env } : {};
}

function probeOf(c: ContainerLike): NonNullable<NonNullable<ImageSource['workload']>['probe']> {
  const p = c.readinessProbe;
  if (!p) return { disabled: true };
  return {
    ...(p.httpGet?.path ? { path: p.httpGet.path } : {}),
    ...(p.initialDelaySeconds !== undefined ? { initialDelaySeconds: p.initialDelaySeconds } : {}),
    ...(p.periodSeconds !== undefined ? { periodSeconds: p.periodSeconds } : {}),
    ...(p.failureThreshold !== undefined ? { failureThreshold: p.failureThreshold } : {}),
  };
}
