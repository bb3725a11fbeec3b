/** How an AppSet is summed up for a person (the CLI's table and the web page): pure, no schema imports. */

/** A generator as its JSON shows it: one key naming its kind; matrix and merge hold two children. */
export type GeneratorShape = Record<string, unknown> & {
  matrix?: { generators: readonly Record<string, unknown>[] };
  merge?: { generators: readonly Record<string, unknown>[]; mergeKeys?: readonly string[] };
};

/** The kinds of an AppSet's generators, in order: `list`, `matrix(clusters, gitDirectories)`… */
export function generatorKinds(generators: readonly GeneratorShape[]): string {
  return generators
    .map((g) => {
      const kind = Object.keys(g)[0] ?? '';
      const children = (g.matrix ?? g.merge)?.generators.map((c) => Object.keys(c)[0] ?? '');
      return children ? `${kind}(${children.join(', ')})` : kind;
    })
    .join(', ');
}
