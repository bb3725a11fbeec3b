/** Writes the generated App CRD to deploy/crds/apps.cd.svc.space.yaml (run with `npm run generate`). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderAppCrdYaml } from '../src/core/crd.ts';

const target = fileURLToPath(new URL('../deploy/crds/apps.cd.svc.space.yaml', import.meta.url));
writeFileSync(target, renderAppCrdYaml());
console.log(`wrote ${target}`);
