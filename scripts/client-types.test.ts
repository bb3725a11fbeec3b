import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, CLIENT_TYPES_FILE, renderClientTypes } from './client-types.ts';

describe('the generated API client', () => {
  it("is checked in exactly as generated from the server's document (run `npm run generate` after changing a route)", async () => {
    const document = await buildOpenApiDocument();
    expect(Object.keys(document.paths ?? {})).toContain('/api/v1/apps/{namespace}/{name}/status');
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await renderClientTypes(document));
  }, 60_000);
});
