/**
 * YAML/JSON manifest text → validated KubeObjects: multi-document YAML, `List` kinds flattened, empty documents
 * skipped, and every object checked for apiVersion, kind and metadata.name.
 */
import { parseAllDocuments } from 'yaml';
import { type KubeObject, ManifestError } from './types.ts';

/**
 * How far YAML aliases may expand (the yaml library's `maxAliasCount`, weighted by the size of what each alias
 * copies): real manifests use a handful; an alias bomb (billion laughs) stops here instead of filling memory.
 */
const MAX_ALIAS_COUNT = 100;

/** Parses manifest text; `file` names the source in errors. Throws ManifestError. */
export function parseManifests(text: string, file: string): KubeObject[] {
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const out: KubeObject[] = [];
  let index = 0;
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    index++;
    const first = doc.errors[0];
    if (first) throw new ManifestError(file, `document ${index}: invalid YAML: ${first.message.split('\n')[0]}`);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      // The yaml library stops alias expansion past the bound ("billion laughs") with a ReferenceError.
      const why = err instanceof Error ? err.message : String(err);
      throw new ManifestError(file, `document ${index}: YAML aliases expand too far (over ${MAX_ALIAS_COUNT}): ${why}`);
    }
    if (value === null || value === undefined) continue;
    flatten(value, file, index, out);
  }
  return out;
}

function flatten(value: unknown, file: string, index: number, out: KubeObject[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ManifestError(file, `document ${index}: expected a Kubernetes object, found ${describe(value)}`);
  }
  const obj = value as Record<string, unknown>;
  if (typeof obj['kind'] === 'string' && obj['kind'].endsWith('List') && Array.isArray(obj['items'])) {
    for (const item of obj['items']) flatten(item, file, index, out);
    return;
  }
  out.push(validate(obj, file, index));
}

function validate(obj: Record<string, unknown>, file: string, index: number): KubeObject {
  const where = `document ${index}`;
  if (typeof obj['apiVersion'] !== 'string' || obj['apiVersion'] === '') {
    throw new ManifestError(file, `${where}: missing apiVersion`);
  }
  if (typeof obj['kind'] !== 'string' || obj['kind'] === '') throw new ManifestError(file, `${where}: missing kind`);
  const meta = obj['metadata'];
  if (typeof meta !== 'object' || meta === null || typeof (meta as { name?: unknown }).name !== 'string') {
    throw new ManifestError(file, `${where}: ${obj['kind']} has no metadata.name`);
  }
  const name = (meta as { name: string }).name;
  if (!/^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/.test(name) || name.length > 253) {
    throw new ManifestError(file, `${where}: ${obj['kind']} name "${name}" is not a valid object name`);
  }
  return obj as KubeObject;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the text "${value.slice(0, 40)}"`;
  return typeof value;
}
