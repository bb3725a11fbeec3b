/** The entry of an imported object that became an svc object: one way to close its ledger and grade it. */
import type { FieldLedger } from './ledger.ts';
import { renameNote } from './naming.ts';
import type { FieldNote, ImportEntry, ObjectRef } from './types.ts';

/** `partial` when a field was left unsupported, else `mapped`. */
export function resultOf(fields: readonly FieldNote[]): 'mapped' | 'partial' {
  return fields.some((f) => f.status === 'unsupported') ? 'partial' : 'mapped';
}

/**
 * The entry of `object`, imported as `becomes` with its payload: a rename from `original` is noted on
 * `metadata.name`, the ledger is closed, and the result graded by {@link resultOf}.
 */
export function becameEntry(
  l: FieldLedger,
  object: ObjectRef,
  original: string,
  becomes: NonNullable<ImportEntry['becomes']>,
  payload: Pick<ImportEntry, 'app' | 'appset' | 'repository' | 'registry'>,
): ImportEntry {
  const rename = renameNote(original, becomes.name);
  if (rename) l.item('metadata.name', 'mapped', { to: 'name', note: rename });
  const fields = l.finish();
  return { object, result: resultOf(fields), becomes, ...payload, fields };
}

/** The entry of `object` that becomes no svc object, for `reason`; the ledger is closed (its fields listed). */
export function unmappedEntry(l: FieldLedger, object: ObjectRef, reason: string): ImportEntry {
  return { object, result: 'unmapped', reason, fields: l.finish() };
}
