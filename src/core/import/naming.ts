/**
 * svc names for imported objects. Argo CD and Flux names are DNS-1123 subdomains (dots allowed, up to 253
 * characters); svc Apps, repositories and registries are DNS-1123 labels, unique per org and kind. A name that
 * is not a label is rewritten (dots and other characters to `-`, cut to 63) and a clash gets `-2`, `-3`, …; the
 * report says so.
 */
import { DNS1123_LABEL_MAX, isDnsLabel } from '../names.ts';

/** `name` as a DNS-1123 label (lower case, `-` for anything else, trimmed, at most 63 characters). */
export function labelOf(name: string): string {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, DNS1123_LABEL_MAX)
    .replace(/-+$/, '');
  return label === '' ? 'imported' : label;
}

/** Hands out unique labels, one namespace of names per svc kind. */
export class Namer {
  private readonly used = new Map<string, Set<string>>();

  /** A free label for `name` among the names of `kind`; records it as used. */
  take(kind: string, name: string): string {
    const used = this.used.get(kind) ?? new Set<string>();
    this.used.set(kind, used);
    const base = labelOf(name);
    let candidate = base;
    for (let i = 2; used.has(candidate); i++) {
      const suffix = `-${i}`;
      candidate = `${base.slice(0, DNS1123_LABEL_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
    }
    used.add(candidate);
    return candidate;
  }
}

/** A note for the report when the svc name differs from the imported one, else undefined. */
export function renameNote(original: string, name: string): string | undefined {
  if (original === name) return undefined;
  return isDnsLabel(original)
    ? `named ${name}: ${original} is taken by another imported object`
    : `named ${name}: svc names are DNS-1123 labels`;
}
