/**
 * kwok Stage configurations that play the controllers of the kinds svc assesses (docs/operator.md "Health"), the way
 * kwok plays kubelets: each watches its kind on the test plane and writes the status its controller would, decided
 * by the object's spec (never by the test writing the status it asserts). A test changes the desired state in Git,
 * svc applies it, the "controller" answers. What makes each one fail is what would make the real one fail:
 *
 * | kind (controller)                         | fails when                                          | then                          |
 * |-------------------------------------------|-----------------------------------------------------|-------------------------------|
 * | cert-manager Certificate                  | `spec.issuerRef.name` is `failing-issuer`           | Ready=False, Issuing=False    |
 * | cert-manager Issuer                       | it is a `ca` issuer (no key pair in the plane)      | Ready=False ErrGetKeyPair     |
 * | external-secrets ExternalSecret           | its store is named `missing-…`                      | Ready=False SecretSyncedError |
 * | external-secrets SecretStore              | its provider is not `fake`                          | Ready=False ValidationFailed  |
 * | Argo Rollouts Rollout                     | its first image's tag is `failing`                  | aborted, phase Degraded       |
 * | Flux Kustomization                        | `spec.path` names `broken`                          | Ready=False BuildFailed       |
 * | Flux HelmRelease                          | `spec.values.failInstall` is true                   | Ready=False InstallFailed     |
 * | Crossplane Provider                       | its package's tag is `failing`                      | Healthy=False                 |
 * | Prometheus Operator Prometheus            | `spec.version` is `v0.0.0`                          | Available=False               |
 * | HorizontalPodAutoscaler (controller off)  | its first metric is External (no metrics API here)  | ScalingActive=False           |
 * | CronJob (controller off)                  | its first container's image tag is `failing`        | last run did not succeed      |
 * | Service LoadBalancer (a cloud controller) | never (an address for every default-class LB)       | —                             |
 * | Ingress of class `kwok`                   | never (an address once the class is set)            | —                             |
 *
 * Every stage answers once per generation of the object (it records the generation it answered in an annotation,
 * ANSWERED, since not every status schema keeps an observedGeneration), so a changed spec is answered again and
 * an unchanged one is left alone.
 */
import { stringify } from 'yaml';

/**
 * How long the simulated cloud load balancer and ingress controller take to publish an address: long enough that
 * svc sees (and records) the Service or Ingress waiting for it, as it would with a real one.
 */
const ADDRESS_DELAY_MS = 2000;

/** The ingress class whose Ingresses the plane's simulated ingress controller serves. */
export const KWOK_INGRESS_CLASS = 'kwok';

const now = '{{ Now | Quote }}';
const gen = '{{ .metadata.generation }}';
/** The annotation in which a stage records the generation it answered. */
export const ANSWERED = 'kwok.svc.test/answered-generation';
/** Not yet answered for this generation. */
const unanswered = `!has(self.metadata.annotations) || !('${ANSWERED}' in self.metadata.annotations) || self.metadata.annotations['${ANSWERED}'] != string(self.metadata.generation)`;
const answer = {
  root: 'metadata',
  status: false,
  template: `annotations:\n  ${ANSWERED}: {{ .metadata.generation | Quote }}`,
};
const alive = '!has(self.metadata.deletionTimestamp)';

interface Cond {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

function conditionsYaml(conds: Cond[], withGeneration = true): string {
  return conds
    .map(
      (c) =>
        `- type: ${c.type}\n  status: "${c.status}"\n  reason: ${c.reason}\n  message: ${JSON.stringify(c.message)}\n  lastTransitionTime: ${now}${withGeneration ? `\n  observedGeneration: ${gen}` : ''}`,
    )
    .join('\n');
}

/**
 * One Stage: for objects of `apiGroup` (group/version) `kind` matching every CEL expression, patch `root`. With
 * `perGeneration` (kinds that have a metadata.generation) it answers once per generation; kinds without one (HPA,
 * Service, Ingress) select by what their status lacks instead, so the answer ends the match. `delayMs`: how long
 * the controller takes to answer.
 */
function stage(
  name: string,
  apiGroup: string,
  kind: string,
  when: string[],
  patches: { root: string; status?: boolean; template: string }[],
  perGeneration = true,
  delayMs = 0,
) {
  return {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Stage',
    metadata: { name },
    spec: {
      resourceRef: { apiGroup, kind },
      ...(delayMs > 0 ? { delay: { durationMilliseconds: delayMs } } : {}),
      selector: {
        matchExpressions: [alive, ...(perGeneration ? [unanswered] : []), ...when].map((expression) => ({
          cel: { expression },
        })),
      },
      steps: [...patches, ...(perGeneration ? [answer] : [])].map((p) => ({
        patch: {
          root: p.root,
          ...(p.status === false ? {} : { subresource: 'status' }),
          type: 'merge',
          template: p.template,
        },
      })),
    },
  };
}

/** A pair of stages for a kstatus-style CRD: `ok` conditions unless `failing`, then `bad`. */
function conditionPair(
  name: string,
  apiGroup: string,
  kind: string,
  failing: string,
  ok: Cond[],
  bad: Cond[],
  extra = '',
) {
  const status = (conds: Cond[]) => `observedGeneration: ${gen}\n${extra}conditions:\n${conditionsYaml(conds)}`;
  return [
    stage(`${name}-ok`, apiGroup, kind, [`!(${failing})`], [{ root: 'status', template: status(ok) }]),
    stage(`${name}-failing`, apiGroup, kind, [failing], [{ root: 'status', template: status(bad) }]),
  ];
}

const T = (type: string, reason: string, message = ''): Cond => ({ type, status: 'True', reason, message });
const F = (type: string, reason: string, message = ''): Cond => ({ type, status: 'False', reason, message });

function rolloutStages() {
  const failing = "self.spec.template.spec.containers[0].image.endsWith(':failing')";
  const status = (phase: string, extra: string) =>
    `observedGeneration: {{ .metadata.generation | Quote }}\nphase: ${phase}\n${extra}`;
  return [
    stage(
      'rollout-ok',
      'argoproj.io/v1alpha1',
      'Rollout',
      [`!(${failing})`],
      [
        {
          root: 'status',
          template: status(
            'Healthy',
            'abort: false\nmessage: ""\nreplicas: 1\nreadyReplicas: 1\navailableReplicas: 1\nupdatedReplicas: 1',
          ),
        },
      ],
    ),
    stage(
      'rollout-failing',
      'argoproj.io/v1alpha1',
      'Rollout',
      [failing],
      [
        {
          root: 'status',
          template: status('Degraded', 'abort: true\nmessage: "RolloutAborted: metric error-rate assessed Failed"'),
        },
      ],
    ),
  ];
}

function hpaStages() {
  const ref = ['autoscaling/v2', 'HorizontalPodAutoscaler'] as const;
  const failing = "has(self.spec.metrics) && self.spec.metrics[0].type == 'External'";
  const status = (active: Cond) =>
    `currentReplicas: {{ .spec.minReplicas }}\ndesiredReplicas: {{ .spec.minReplicas }}\nconditions:\n${conditionsYaml([T('AbleToScale', 'SucceededGetScale'), active], false)}`;
  const answered = (value: string) =>
    `!has(self.status.conditions) || !self.status.conditions.exists(c, c.type == 'ScalingActive' && c.status == '${value}')`;
  return [
    stage(
      'hpa-ok',
      ...ref,
      [`!(${failing})`, answered('True')],
      [{ root: 'status', template: status(T('ScalingActive', 'ValidMetricFound')) }],
      false,
    ),
    stage(
      'hpa-failing',
      ...ref,
      [failing, answered('False')],
      [
        {
          root: 'status',
          template: status(F('ScalingActive', 'FailedGetExternalMetric', 'no external metrics API is served')),
        },
      ],
      false,
    ),
  ];
}

function cronJobStages() {
  const failing = "self.spec.jobTemplate.spec.template.spec.containers[0].image.endsWith(':failing')";
  return [
    stage(
      'cronjob-ok',
      'batch/v1',
      'CronJob',
      [`!(${failing})`],
      [{ root: 'status', template: `lastScheduleTime: ${now}\nlastSuccessfulTime: ${now}` }],
    ),
    stage(
      'cronjob-failing',
      'batch/v1',
      'CronJob',
      [failing],
      [{ root: 'status', template: `lastScheduleTime: ${now}\nlastSuccessfulTime: null` }],
    ),
  ];
}

function addressStages() {
  const noAddress = '!has(self.status.loadBalancer) || !has(self.status.loadBalancer.ingress)';
  return [
    stage(
      'service-load-balancer',
      'v1',
      'Service',
      ["self.spec.type == 'LoadBalancer'", '!has(self.spec.loadBalancerClass)', noAddress],
      [{ root: 'status', template: 'loadBalancer:\n  ingress:\n  - ip: 127.0.0.1' }],
      false,
      ADDRESS_DELAY_MS,
    ),
    stage(
      'ingress-address',
      'networking.k8s.io/v1',
      'Ingress',
      [`has(self.spec.ingressClassName) && self.spec.ingressClassName == '${KWOK_INGRESS_CLASS}'`, noAddress],
      [{ root: 'status', template: 'loadBalancer:\n  ingress:\n  - hostname: ingress.kwok.test' }],
      false,
      ADDRESS_DELAY_MS,
    ),
  ];
}

/** The Stage documents of the plane's simulated controllers, as one YAML stream (kwok `--config`). */
export function healthStagesYaml(): string {
  const stages = [
    ...conditionPair(
      'certificate',
      'cert-manager.io/v1',
      'Certificate',
      "self.spec.issuerRef.name == 'failing-issuer'",
      [T('Ready', 'Ready', 'Certificate is up to date and has not expired')],
      [
        F('Ready', 'DoesNotExist', 'Issuing certificate as Secret does not exist'),
        F('Issuing', 'Failed', 'The certificate request has failed to complete and will be retried'),
      ],
    ),
    ...conditionPair(
      'issuer',
      'cert-manager.io/v1',
      'Issuer',
      'has(self.spec.ca)',
      [T('Ready', 'KeyPairVerified', 'Signing CA verified')],
      [F('Ready', 'ErrGetKeyPair', 'Error getting keypair for CA issuer: secret not found')],
    ),
    ...conditionPair(
      'externalsecret',
      'external-secrets.io/v1',
      'ExternalSecret',
      "self.spec.secretStoreRef.name.startsWith('missing')",
      [T('Ready', 'SecretSynced', 'secret synced')],
      [F('Ready', 'SecretSyncedError', 'could not get SecretStore')],
    ),
    ...conditionPair(
      'secretstore',
      'external-secrets.io/v1',
      'SecretStore',
      '!has(self.spec.provider.fake)',
      [T('Ready', 'Valid', 'store validated')],
      [F('Ready', 'ValidationFailed', 'unable to validate store')],
    ),
    ...rolloutStages(),
    ...conditionPair(
      'kustomization',
      'kustomize.toolkit.fluxcd.io/v1',
      'Kustomization',
      "self.spec.path.contains('broken')",
      [T('Ready', 'ReconciliationSucceeded', 'Applied revision: main@sha1:0')],
      [
        F('Ready', 'BuildFailed', 'kustomize build failed: accumulating resources'),
        T('Stalled', 'BuildFailed', 'kustomize build failed'),
      ],
    ),
    ...conditionPair(
      'helmrelease',
      'helm.toolkit.fluxcd.io/v2',
      'HelmRelease',
      'has(self.spec.values) && has(self.spec.values.failInstall) && self.spec.values.failInstall == true',
      [
        T('Ready', 'InstallSucceeded', 'Helm install succeeded'),
        T('Released', 'InstallSucceeded', 'Helm install succeeded'),
      ],
      [
        F('Ready', 'InstallFailed', 'Helm install failed: context deadline exceeded'),
        F('Released', 'InstallFailed', 'Helm install failed'),
      ],
    ),
    ...conditionPair(
      'provider',
      'pkg.crossplane.io/v1',
      'Provider',
      "self.spec.package.endsWith(':failing')",
      [T('Installed', 'ActivePackageRevision'), T('Healthy', 'HealthyPackageRevision')],
      [T('Installed', 'ActivePackageRevision'), F('Healthy', 'UnhealthyPackageRevision', 'cannot start the provider')],
    ),
    ...conditionPair(
      'prometheus',
      'monitoring.coreos.com/v1',
      'Prometheus',
      "has(self.spec.version) && self.spec.version == 'v0.0.0'",
      [T('Available', 'AllReplicasAvailable'), T('Reconciled', 'ReconciliationSucceeded')],
      [F('Available', 'NoPodReady', 'no replica of prometheus is ready'), T('Reconciled', 'ReconciliationSucceeded')],
      'paused: false\nreplicas: 1\nupdatedReplicas: 1\navailableReplicas: 1\nunavailableReplicas: 0\n',
    ),
    ...hpaStages(),
    ...cronJobStages(),
    ...addressStages(),
  ];
  return stages.map((s) => stringify(s)).join('---\n');
}
