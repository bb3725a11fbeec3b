/**
 * An AppSet as people write it in a file or a text box: the API's create payload (`name`, `generators`, `template`,
 * `sync_policy`, `strategy`) as is, or an AppSet manifest (`kind: AppSet`, as kubectl would apply it) turned into one. Shared by
 * `svc appset create|update -f` and the web UI's AppSet editor; the server validates the rest. Pure.
 */

/** The create payload `doc` stands for (a manifest mapped, anything else returned as is). */
export function appSetPayloadOf(doc: Record<string, unknown>): Record<string, unknown> {
  if (doc['kind'] !== 'AppSet') return doc;
  const metadata = (doc['metadata'] ?? {}) as Record<string, unknown>;
  const spec = (doc['spec'] ?? {}) as Record<string, unknown>;
  return {
    name: metadata['name'],
    generators: spec['generators'],
    template: spec['template'],
    ...(spec['syncPolicy'] ? { sync_policy: spec['syncPolicy'] } : {}),
    ...(spec['strategy'] ? { strategy: spec['strategy'] } : {}),
  };
}

/**
 * The update payload of the AppSet `name` from `doc` (the same text create takes): its name, if it gives one, must
 * be `name` (an update never renames); a message saying what is wrong otherwise.
 */
export function appSetUpdateOf(
  doc: Record<string, unknown>,
  name: string,
): { body: Record<string, unknown> } | { problem: string } {
  const { name: named, ...spec } = appSetPayloadOf(doc);
  if (named !== undefined && named !== name) {
    return { problem: `it names AppSet ${String(named)}, not ${name}: an update never renames` };
  }
  return { body: spec };
}
