/**
 * Writes the generated App and AppSet CRDs to deploy/crds/ and to the Helm chart's copies in deploy/chart/files/,
 * which its CRD template reads (run with `npm run generate`).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderAppCrdYaml, renderAppSetCrdYaml } from '../src/core/crd.ts';

const CRDS = [
  ['apps.cd.svc.space.yaml', renderAppCrdYaml],
  ['appsets.cd.svc.space.yaml', renderAppSetCrdYaml],
] as const;

for (const [file, render] of CRDS) {
  for (const dir of ['../deploy/crds/', '../deploy/chart/files/']) {
    const target = fileURLToPath(new URL(`${dir}${file}`, import.meta.url));
    writeFileSync(target, render());
    console.log(`wrote ${target}`);
  }
}
