/**
 * Writes the generated App CRD to deploy/crds/apps.cd.svc.space.yaml and to the Helm chart's copy,
 * deploy/chart/files/apps.cd.svc.space.yaml, which its CRD template reads (run with `npm run generate`).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderAppCrdYaml } from '../src/core/crd.ts';

for (const path of ['../deploy/crds/apps.cd.svc.space.yaml', '../deploy/chart/files/apps.cd.svc.space.yaml']) {
  const target = fileURLToPath(new URL(path, import.meta.url));
  writeFileSync(target, renderAppCrdYaml());
  console.log(`wrote ${target}`);
}
