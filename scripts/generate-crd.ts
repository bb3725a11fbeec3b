/**
 * Writes the generated App CRD to deploy/crds/apps.cd.svc.space.yaml and to the Helm chart's copy,
 * deploy/chart/files/apps.cd.svc.space.yaml, which its CRD template reads, and the AppSet CRD to
 * deploy/crds/appsets.cd.svc.space.yaml (run with `npm run generate`).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderAppCrdYaml, renderAppSetCrdYaml } from '../src/core/crd.ts';

for (const path of ['../deploy/crds/apps.cd.svc.space.yaml', '../deploy/chart/files/apps.cd.svc.space.yaml']) {
  const target = fileURLToPath(new URL(path, import.meta.url));
  writeFileSync(target, renderAppCrdYaml());
  console.log(`wrote ${target}`);
}

// The AppSet CRD (issue 27): applied from deploy/crds/ (the test harness applies every file there); not in the
// chart yet.
const appsets = fileURLToPath(new URL('../deploy/crds/appsets.cd.svc.space.yaml', import.meta.url));
writeFileSync(appsets, renderAppSetCrdYaml());
console.log(`wrote ${appsets}`);
