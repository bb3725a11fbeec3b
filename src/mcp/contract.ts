/**
 * The contract of POST /api/v1/mcp, the Model Context Protocol endpoint (Streamable HTTP, stateless). Once the MCP
 * SDK has the request (after authentication), it refuses with a JSON-RPC 2.0 error object, not with svc's
 * `{"error"}`; the document states both forms (docs/compatibility.md "MCP errors").
 */
import { Type } from 'typebox';
import { ErrorBody } from '../api/contract/errors.ts';
import { Nullable, ref } from '../api/contract/schema.ts';

/** The protocol's own error answer. */
const JsonRpcError = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  error: Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
  id: Type.Optional(Nullable(Type.Union([Type.String(), Type.Integer()]))),
});

const Id = Type.Union([Type.String(), Type.Integer()]);

/** A JSON-RPC 2.0 request (with an id) or notification (without). */
const Message = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    method: Type.String({ minLength: 1, maxLength: 256 }),
    id: Type.Optional(Id),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

const answer = (description: string) =>
  Type.Unsafe<unknown>({ description, anyOf: [ErrorBody, JsonRpcError].map((s) => ('$id' in s ? ref(s) : s)) });

export const mcpRoute = {
  tags: ['mcp'],
  summary:
    'Model Context Protocol (Streamable HTTP, stateless) for agents; API keys only. tools/list shows the tools the key may use (role and scope ceilings, tool allowlist); any other tools/call is a JSON-RPC error',
  headers: Type.Object({
    accept: Type.String({
      pattern: '^(application/json, ?text/event-stream|text/event-stream, ?application/json)$',
      description: 'the protocol asks clients to accept both: application/json, text/event-stream',
    }),
  }),
  body: Type.Union([Message, Type.Array(Message, { minItems: 1, maxItems: 100 })], {
    description: 'a JSON-RPC 2.0 request or notification, or a batch of them',
  }),
  response: {
    200: Type.Unsafe<unknown>({
      description: 'a JSON-RPC response (application/json) or a stream of them (text/event-stream)',
      content: {
        'application/json': { schema: {} },
        // Each event as an SSE parser sees it: `data` is a JSON-RPC message as JSON text.
        'text/event-stream': {
          schema: Type.Object({
            event: Type.Optional(Type.String()),
            data: Type.String(),
            id: Type.Optional(Type.String()),
          }),
        },
      },
    }),
    // No body: a batch of notifications or responses was accepted.
    202: Type.Unsafe<unknown>({ type: 'null', description: 'a notification or response accepted (no body)' }),
    ...Object.fromEntries(
      [400, 401, 403, 404, 406, 413, 415, 500].map((status) => [
        status,
        answer('svc error, or the protocol JSON-RPC error once the SDK has the request'),
      ]),
    ),
  },
};
