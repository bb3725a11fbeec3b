/**
 * The Helm chart (deploy/chart) as CI checks it: `helm lint --strict` with the default values and with every
 * optional part on, a server-side dry run of what it renders on the real apiserver (every object valid, every
 * kind known), the values schema refusing what it should, and the CRD it carries being the generated one. The
 * install itself and its RBAC are proved by chart-rbac.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildAppCrd, buildAppSetCrd } from '../../src/core/crd.ts';
import { helm, kubectl, repoRoot } from '../harness/index.ts';

const chart = join(repoRoot, 'deploy/chart');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

/** Every optional part on (the ServiceMonitor's CRD is not on the harness plane: lint renders it, no dry run). */
const fullValues = `
image: { repository: registry.test/svc, digest: "sha256:${'a'.repeat(64)}" }
publicURL: https://svc.example.test
database: { url: "postgres://svc:pw@db.test:5432/svc" }
secrets: { authSecret: "${'s'.repeat(40)}", credentialsKey: "${'0'.repeat(64)}" }
server: { replicas: 3, clusterProbe: true, podReads: true }
operator: { replicas: 2, watchNamespace: org-acme, rbac: { mode: wildcard } }
ingress: { enabled: true, className: nginx, host: svc.example.test, tlsSecretName: svc-tls }
webhookIngress: { enabled: true, host: hooks.example.test }
networkPolicy: { apiFrom: [{ namespaceSelector: { matchLabels: { name: ingress } } }] }
`;

type Obj = { apiVersion: string; kind: string; metadata: { name: string }; [k: string]: unknown };
const objects = (yamlText: string): Obj[] =>
  parseAllDocuments(yamlText)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);

describe('the Helm chart', () => {
  const namespace = `chart-${randomBytes(3).toString('hex')}`;
  let dir: string;
  let full: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-chart-'));
    full = join(dir, 'full.yaml');
    writeFileSync(full, fullValues);
    await kubectl(inject('mgmtKubeconfig'), ['create', 'namespace', namespace]);
  });
  afterAll(async () => {
    await kubectl(inject('mgmtKubeconfig'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes helm lint --strict with its defaults and with every optional part on', async () => {
    const defaults = await helm(['lint', '--strict', chart]);
    expect(defaults.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    const everything = await helm(['lint', '--strict', chart, '-f', full, '--set', 'serviceMonitor.enabled=true']);
    expect(everything.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it.each([
    ['the defaults (SQLite)', [] as string[]],
    ['every optional part on (PostgreSQL, replicas, Ingresses, wildcard RBAC)', ['-f', 'FULL']],
  ])('renders objects the apiserver accepts in a server-side dry run: %s', async (_what, extra) => {
    const args = extra.map((a) => (a === 'FULL' ? full : a));
    const { stdout: rendered } = await helm(['template', 'svc', chart, '-n', namespace, ...args]);
    const { stdout } = await kubectl(inject('mgmtKubeconfig'), ['apply', '--dry-run=server', '-f', '-'], {
      input: rendered,
    });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(objects(rendered).length);
    for (const line of lines) expect(line).toMatch(/\((server dry run)\)$/);
  });

  it('refuses values outside its schema, SQLite with more than one server replica, and an Ingress without publicURL', async () => {
    const refused = async (...set: string[]) =>
      helm(['template', 'svc', chart, ...set.flatMap((s) => ['--set', s])]).then(
        () => '',
        (err: Error) => err.message,
      );
    expect(await refused('operator.rbac.mode=everything')).toMatch(/operator\/rbac\/mode/);
    expect(await refused('image.digest=latest')).toMatch(/image\/digest/);
    expect(await refused('server.replicass=2')).toMatch(/additional properties 'replicass' not allowed/);
    expect(await refused('secrets.authSecret=short')).toMatch(/secrets\/authSecret/);
    expect(await refused('server.replicas=2')).toMatch(/server.replicas > 1 needs PostgreSQL/);
    expect(await refused('server.replicas=2', 'database.url=postgres://db/svc')).toBe('');
    expect(await refused('ingress.enabled=true')).toMatch(/ingress.enabled needs publicURL/);
  });

  it('stops on a plane whose App CRD kubectl applied (as `npm run cluster` and `npm start` do) until Helm may adopt it', async () => {
    // The harness applies the CRD as scripts/cluster.ts does (kubectl apply --server-side). docs/install.md says so
    // and gives the adoption commands that upgrade.test.ts runs.
    const refusal = await helm(
      ['install', 'svc', chart, '-n', namespace, '--dry-run=server', '--set', 'image.repository=registry.test/svc'],
      { kubeconfigPath: inject('mgmtKubeconfig') },
    ).then(
      () => '',
      (err: Error) => err.message,
    );
    expect(refusal).toMatch(/CustomResourceDefinition "apps\.cd\.svc\.space" .*exists and cannot be imported/);
  });

  it("carries the generated App and AppSet CRDs, kept on uninstall, and svc's version", async () => {
    const rendered = objects((await helm(['template', 'svc', chart])).stdout);
    for (const generated of [buildAppCrd(), buildAppSetCrd()] as { metadata: { name: string }; spec: unknown }[]) {
      const crd = rendered.find(
        (o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === generated.metadata.name,
      ) as Obj & { spec: unknown };
      expect(crd.spec).toEqual(JSON.parse(JSON.stringify(generated.spec)));
      expect(crd.metadata).toMatchObject({ annotations: { 'helm.sh/resource-policy': 'keep' } });
    }
    const meta = readFileSync(join(chart, 'Chart.yaml'), 'utf8');
    expect(meta).toMatch(new RegExp(`^version: ${pkg.version.replaceAll('.', '\\.')}$`, 'm'));
    expect(meta).toMatch(new RegExp(`^appVersion: "${pkg.version.replaceAll('.', '\\.')}"$`, 'm'));
  });

  it('grants the operator only the allowlisted kinds by default, and every kind in wildcard mode', async () => {
    type Role = Obj & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    const applyRole = async (...args: string[]) =>
      objects((await helm(['template', 'svc', chart, ...args])).stdout).find(
        (o) => o.kind === 'ClusterRole' && o.metadata.name === 'svc-operator-apply',
      ) as Role;
    const allowlist = await applyRole();
    const resources = allowlist.rules.flatMap((r) => r.resources);
    expect(resources).toContain('deployments');
    expect(resources).not.toContain('secrets');
    expect(resources).not.toContain('*');
    expect(allowlist.rules.flatMap((r) => r.apiGroups)).not.toContain('*');
    const wildcard = await applyRole('--set', 'operator.rbac.mode=wildcard');
    expect(wildcard.rules).toEqual([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
  });

  it('shards the operator with more than one replica: --sharding, a PodDisruptionBudget, and Lease rights', async () => {
    type Deployment = Obj & { spec: { template: { spec: { containers: { args: string[] }[] } } } };
    const render = async (...args: string[]) => objects((await helm(['template', 'svc', chart, ...args])).stdout);
    const shardingOf = (objs: Obj[]) =>
      (
        objs.find((o) => o.kind === 'Deployment' && o.metadata.name === 'svc-operator') as Deployment
      ).spec.template.spec.containers[0]?.args.find((a) => a.startsWith('--sharding='));
    const single = await render();
    expect(shardingOf(single)).toBe('--sharding=off');
    expect(single.some((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === 'svc-operator')).toBe(false);
    const three = await render('--set', 'operator.replicas=3');
    expect(shardingOf(three)).toBe('--sharding=app');
    expect(three.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === 'svc-operator')).toMatchObject({
      spec: { minAvailable: 1 },
    });
    expect(shardingOf(await render('--set', 'operator.replicas=3', '--set', 'operator.sharding=cluster'))).toBe(
      '--sharding=cluster',
    );
    // Its own Lease renewed, the others listed, its own deleted on a clean stop: in the release namespace only.
    const role = three.find((o) => o.kind === 'Role' && o.metadata.name === 'svc-operator') as Obj & {
      rules: { resources: string[]; verbs: string[] }[];
    };
    expect(role.rules).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'list', 'create', 'update', 'delete'],
      },
    ]);
  });

  type Role = Obj & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
  /** The server's ClusterRole as the chart renders it with `args`. */
  const serverRole = async (...args: string[]) =>
    objects((await helm(['template', 'svc', chart, ...args])).stdout).find(
      (o) => o.kind === 'ClusterRole' && o.metadata.name === 'svc-server',
    ) as Role;

  it('lets the server read nodes, Pods and namespaces (probing this cluster) only when clusterProbe is set', async () => {
    const reads = (role: Role) => role.rules.filter((r) => r.resources.includes('nodes'));
    expect(reads(await serverRole())).toEqual([]);
    expect(reads(await serverRole('--set', 'server.clusterProbe=true'))).toEqual([
      { apiGroups: [''], resources: ['nodes', 'pods', 'namespaces'], verbs: ['get', 'list'] },
    ]);
  });

  it('lets the server list no Pods and none of the applied kinds by default; Pods and their logs with podReads', async () => {
    const listed = (role: Role) => role.rules.filter((r) => r.verbs.includes('list')).flatMap((r) => r.resources);
    const byDefault = await serverRole();
    expect(listed(byDefault)).not.toContain('pods');
    expect(listed(byDefault)).not.toContain('configmaps');
    expect(byDefault.rules.flatMap((r) => r.resources)).not.toContain('pods/log');
    // The applied kinds are read by name (an App's inventory names them).
    expect(byDefault.rules.find((r) => r.resources.includes('configmaps'))?.verbs).toEqual(['get']);
    expect(
      (await serverRole('--set', 'server.podReads=true')).rules.filter((r) => r.resources.includes('pods')),
    ).toEqual([{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }]);
  });
});
