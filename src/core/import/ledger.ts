/**
 * The field ledger of one imported object: every field the mapper reads is recorded as mapped, equivalent or
 * unsupported, and at the end every field it did not read is reported as unsupported ("not understood"), so nothing
 * is dropped silently. Paths are dotted (`spec.source.helm`); a key with a dot or a slash is written in brackets
 * (`metadata.annotations["argocd.argoproj.io/sync-wave"]`).
 */
import type { FieldNote, FieldStatus } from './types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields of any object that are not configuration: identity, server-set metadata, observed state. */
const NOT_CONFIGURATION = [
  'apiVersion',
  'kind',
  'status',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.creationTimestamp',
  'metadata.managedFields',
  'metadata.selfLink',
  'metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]',
];

/** Splits a dotted path into keys (`a.b["c.d/e"]` → a, b, c.d/e). */
function keysOf(path: string): string[] {
  const keys: string[] = [];
  for (const m of path.matchAll(/\["([^"]*)"\]|([^.[\]]+)/g)) keys.push(m[1] ?? m[2] ?? '');
  return keys;
}

function pathOf(keys: readonly string[]): string {
  return keys.map((k, i) => (/[./[\]"]/.test(k) ? `["${k}"]` : i === 0 ? k : `.${k}`)).join('');
}

/** The records of one object's fields. */
export class FieldLedger {
  readonly notes: FieldNote[] = [];
  private readonly taken = new Set<string>();

  private readonly doc: Record<string, unknown>;

  constructor(doc: Record<string, unknown>) {
    this.doc = doc;
    for (const path of NOT_CONFIGURATION) this.take(path);
  }

  /** The value at `path`, or undefined. */
  get(path: string): unknown {
    let v: unknown = this.doc;
    for (const k of keysOf(path)) v = isObject(v) ? v[k] : undefined;
    return v;
  }

  /** A string at `path` (undefined for anything else). */
  str(path: string): string | undefined {
    const v = this.get(path);
    return typeof v === 'string' ? v : undefined;
  }

  /** Marks `path` (and everything below it) as read, without a note. */
  take(path: string): void {
    this.taken.add(pathOf(keysOf(path)));
  }

  /** Records a note for `path` when it holds a value; returns the value. */
  note(path: string, status: FieldStatus, detail: { to?: string; note?: string } = {}): unknown {
    const value = this.get(path);
    this.take(path);
    if (value === undefined) return undefined;
    this.notes.push({ field: pathOf(keysOf(path)), status, ...detail });
    return value;
  }

  mapped(path: string, to: string, note?: string): unknown {
    return this.note(path, 'mapped', { to, ...(note ? { note } : {}) });
  }

  equivalent(path: string, note: string): unknown {
    return this.note(path, 'equivalent', { note });
  }

  unsupported(path: string, note: string): unknown {
    return this.note(path, 'unsupported', { note });
  }

  /** A note about a field by label (an item of a list, e.g. `spec.syncPolicy.syncOptions[PruneLast=true]`). */
  item(field: string, status: FieldStatus, detail: { to?: string; note?: string }): void {
    this.notes.push({ field, status, ...detail });
  }

  /**
   * Reports each label and annotation of the object as unsupported (`note`), but for the `keep` keys (those the
   * mapper reads, e.g. a Secret's type label).
   */
  metadataExtras(note: string, keep: readonly string[] = []): void {
    for (const block of ['labels', 'annotations'] as const) {
      const map = this.get(`metadata.${block}`);
      for (const key of isObject(map) ? Object.keys(map) : []) {
        if (this.isTaken(['metadata', block, key])) continue;
        if (keep.includes(key)) this.take(`metadata.${block}["${key}"]`);
        else this.unsupported(`metadata.${block}["${key}"]`, note);
      }
    }
  }

  /** Whether any field is unsupported (so far). */
  get lossy(): boolean {
    return this.notes.some((n) => n.status === 'unsupported');
  }

  /** Every field not read, as unsupported; then the notes. Call once, at the end. */
  finish(): FieldNote[] {
    this.walk(this.doc, []);
    return this.notes;
  }

  private isTaken(keys: string[]): boolean {
    for (let i = 1; i <= keys.length; i++) if (this.taken.has(pathOf(keys.slice(0, i)))) return true;
    return false;
  }

  private walk(value: unknown, keys: string[]): void {
    if (keys.length > 0 && this.isTaken(keys)) return;
    // Deeper than any real manifest: reported as a whole rather than walked (the stack stays bounded).
    if (isObject(value) && Object.keys(value).length > 0 && keys.length < 32) {
      for (const [k, v] of Object.entries(value)) this.walk(v, [...keys, k]);
      return;
    }
    if (keys.length === 0) return;
    this.notes.push({ field: pathOf(keys), status: 'unsupported', note: 'not understood by the importer' });
  }
}
