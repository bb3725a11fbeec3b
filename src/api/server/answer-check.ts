/**
 * For tests: every JSON answer is checked against its route's response schema before it is serialized. The
 * serializer (fast-json-stringify) writes only what the schema names and silently drops the rest, so a view that
 * returns a field its schema lacks would lose it without a trace; with this check the request fails (500, the
 * mismatch logged) and the test that made it fails.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS; under ESM its callable arrives as the `default` of the module namespace.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

/** Adds the check to `app` (after its shared schemas are added, before its routes are ready). */
export function checkAnswers(app: FastifyInstance): void {
  let ajv: Ajv | undefined;
  const compiled = new Map<unknown, ValidateFunction>();
  const validatorOf = (schema: unknown): ValidateFunction => {
    if (!ajv) {
      ajv = new Ajv({ allErrors: true, strict: false });
      addFormats(ajv);
      for (const shared of Object.values(app.getSchemas())) ajv.addSchema(shared as object);
    }
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(schema as object);
      compiled.set(schema, validate);
    }
    return validate;
  };
  app.addHook('preSerialization', async (request, reply, payload) => {
    const responses = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
    const schema = responses?.[String(reply.statusCode)];
    const json = typeof payload === 'object' && payload !== null && !Buffer.isBuffer(payload);
    if (!schema || !json || reply.statusCode >= 400 || 'content' in (schema as object)) return payload;
    const validate = validatorOf(schema);
    if (!validate(payload)) {
      throw new Error(
        `the answer of ${request.routeOptions.url} does not match its schema: ${JSON.stringify(validate.errors)}`,
      );
    }
    return payload;
  });
}
