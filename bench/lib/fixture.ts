/**
 * The benchmark workload: one Kustomize directory (a Deployment and a Service) shared by every App, and the same
 * objects as the bare apply loop sends them (namespace and svc's labels stamped as the operator stamps them).
 */
import { parse } from 'yaml';
import type { AnyObject as Obj } from '../../src/kube/index.ts';

/** Files of the shared fixture repository. `marker` lands in a pod-template annotation (a push changes it). */
export function fixtureFiles(marker = 'v1'): Record<string, string> {
  return {
    'kustomization.yaml': [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      '  - deployment.yaml',
      '  - service.yaml',
      '',
    ].join('\n'),
    'deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: { app: web }
spec:
  replicas: 1
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
      annotations: { bench.svc.space/marker: "${marker}" }
    spec:
      containers:
        - name: web
          image: registry.invalid/bench/web:1.0.0
          ports: [{ containerPort: 8080 }]
`,
    'service.yaml': `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: { app: web }
  ports: [{ port: 80, targetPort: 8080 }]
`,
  };
}

/**
 * A lighter workload for the scale runs (one ConfigMap, no Pods): at 20,000 Apps the fixture's Deployments would
 * put 20,000 Pods on kwok's one fake node and measure the plane's scheduler rather than the operators.
 */
export function configMapFixtureFiles(): Record<string, string> {
  return {
    'kustomization.yaml': [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      '  - configmap.yaml',
      '',
    ].join('\n'),
    'configmap.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  greeting: hello\n',
  };
}

/** Namespace the benchmark's App resources live in (an org namespace, as the API would use). */
export const APPS_NAMESPACE = 'org-bench';

/** Name of the i-th App (and its destination namespace `bench-<i>`). */
export function appName(i: number): string {
  return `app-${String(i).padStart(4, '0')}`;
}

/** Destination namespace of the i-th App. */
export function destinationNamespace(i: number): string {
  return `bench-${String(i).padStart(4, '0')}`;
}

/** The labels the operator stamps on everything it applies for App `name` in {@link APPS_NAMESPACE}. */
export function managedLabels(name: string): Record<string, string> {
  return { 'cd.svc.space/app': name, 'cd.svc.space/app-namespace': APPS_NAMESPACE };
}

/**
 * The fixture's objects as the operator would apply them for the i-th App (bare apply loop input), at `marker` (the
 * pod-template annotation a push changes).
 */
export function renderedObjects(i: number, marker = 'v1'): Obj[] {
  const files = fixtureFiles(marker);
  const labels = managedLabels(appName(i));
  return ['deployment.yaml', 'service.yaml'].map((file) => {
    const obj = parse(files[file] as string) as Obj;
    obj.metadata = {
      ...obj.metadata,
      namespace: destinationNamespace(i),
      labels: { ...obj.metadata.labels, ...labels },
    };
    return obj;
  });
}

/** The App resource for the i-th App of a run. */
export function appResource(i: number, repoURL: string, options: { webhook?: boolean; selfHeal?: boolean } = {}) {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: appName(i), namespace: APPS_NAMESPACE },
    spec: {
      source: { type: 'Git', git: { repoURL, branch: 'main', path: '.', manifestType: 'Kustomize' } },
      destination: { namespace: destinationNamespace(i) },
      syncPolicy: { automated: true, prune: true, ...(options.selfHeal ? { selfHeal: true } : {}) },
      ...(options.webhook ? { webhook: { enabled: true } } : {}),
    },
  };
}

/** The fixture as a chart (version `version`): the same Deployment and Service, no templating, so the bare apply loop's input is the same. */
export function fixtureChart(version: string): Record<string, string> {
  const files = fixtureFiles();
  return {
    'Chart.yaml': `apiVersion: v2\nname: bench\nversion: ${version}\n`,
    'templates/deployment.yaml': files['deployment.yaml'] as string,
    'templates/service.yaml': files['service.yaml'] as string,
  };
}

/** The i-th App of a HelmChart run: the fixture chart from `repoURL`, the newest 1.x. */
export function helmAppResource(i: number, repoURL: string) {
  return {
    apiVersion: 'cd.svc.space/v1alpha1',
    kind: 'App',
    metadata: { name: appName(i), namespace: APPS_NAMESPACE },
    spec: {
      source: { type: 'HelmChart', helmChart: { repoURL, chart: 'bench', version: '^1.0.0' } },
      destination: { namespace: destinationNamespace(i) },
      syncPolicy: { automated: true, prune: true },
    },
  };
}
