/** Path globs as AppSet generators write them (Argo CD's `gitDirectories` and `gitFiles` paths). Pure. */

/** A glob of `*` (within one path segment), `**` (across segments) and `?` as a regular expression. */
export function globRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  const pattern = escaped.replace(/\*\*|\*|\?/g, (m) => (m === '**' ? '.*' : m === '*' ? '[^/]*' : '[^/]'));
  return new RegExp(`^${pattern}$`);
}
