/** A Catalog App's revision (`<template>@v<version>/<source revision>`, docs/catalog.md): written and read. Pure. */

/** The revision of a Catalog App: the template version and the revision of the source it made. */
export function catalogRevision(template: string, version: number, inner: string): string {
  return `${template}@v${version}/${inner}`;
}

/** The parts of a Catalog App's revision; undefined when `revision` is not one. */
export function parseCatalogRevision(
  revision: string,
): { template: string; version: number; inner: string } | undefined {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)@v([1-9][0-9]{0,9})\/(.+)$/.exec(revision);
  if (!m) return undefined;
  return { template: m[1] as string, version: Number(m[3]), inner: m[4] as string };
}
