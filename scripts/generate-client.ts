/**
 * Writes the generated types of the API client, src/client/openapi.gen.ts, from the server's OpenAPI document
 * (run with `npm run generate`, which writes the App CRD too).
 */
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, CLIENT_TYPES_FILE, renderClientTypes } from './client-types.ts';

writeFileSync(CLIENT_TYPES_FILE, await renderClientTypes(await buildOpenApiDocument()));
console.log(`wrote ${CLIENT_TYPES_FILE}`);
