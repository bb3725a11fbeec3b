/**
 * The MCP server of one request: an McpServer (official SDK) holding only the tools the calling API key may use
 * (`visibleTools`), so tools/list is filtered and a tools/call for any other tool is refused by the SDK with a
 * JSON-RPC error (-32602 "Tool … not found"). Each tool answers its result as JSON text plus structured content,
 * with credentials stripped (`redactCredentials`); svc's own errors (404, 403, 409, …) become tool results with
 * `isError` and `{"error"}`, which an agent can read and act on.
 */
import { readFileSync } from 'node:fs';
import { type CallToolResult, fromJsonSchema, type JsonSchemaType, McpServer } from '@modelcontextprotocol/server';
import type { TSchema } from 'typebox';
import type { Actor } from '../api/actor.ts';
import type { ApiServices } from '../api/services.ts';
import { httpStatusOf, SvcError } from '../core/errors.ts';
import { TOOL_CATALOGUE, type ToolName } from '../core/mcp-tools.ts';
import { schemaProblems } from '../core/validator.ts';
import type { Logger } from '../log.ts';
import { visibleTools } from './catalogue.ts';
import { redactCredentials } from './redact.ts';
import { TOOLS } from './tools.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The SDK's validator interface over svc's own (src/core/validator.ts): one compiled Ajv validator per schema. */
const svcValidator = {
  getValidator<T>(schema: JsonSchemaType) {
    return (input: unknown) => {
      const problems = schemaProblems(schema as TSchema, input, 'arguments');
      return problems.length === 0
        ? { valid: true as const, data: input as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: problems.join('; ') };
    };
  },
};

/** Each tool's input schema in the SDK's form, built once (schemas compile once, not per request). */
const INPUTS = Object.fromEntries(
  (Object.keys(TOOLS) as ToolName[]).map((name) => [name, fromJsonSchema(TOOLS[name].input, svcValidator)]),
) as Record<ToolName, ReturnType<typeof fromJsonSchema>>;

/** A tool result carrying `value` as JSON text and as structured content. */
function resultOf(value: Record<string, unknown>, isError = false): CallToolResult {
  const safe = redactCredentials(value) as Record<string, unknown>;
  return {
    content: [{ type: 'text', text: JSON.stringify(safe) }],
    structuredContent: safe,
    ...(isError ? { isError: true } : {}),
  };
}

/**
 * A fresh McpServer for one request by `actor` (an API-key caller), with the tools it may use. `signal` ends long
 * waits (app_status with wait) when the client goes away.
 */
export function mcpServerFor(services: ApiServices, actor: Actor, logger: Logger, signal: AbortSignal): McpServer {
  const server = new McpServer(
    { name: 'svc', version: pkg.version },
    {
      instructions:
        'svc: GitOps continuous delivery. Tools act as the owner of your API key, within its role, scope and tool allowlist; every change is audited with the tool name.',
    },
  );
  for (const name of visibleTools(actor.caller)) {
    const impl = TOOLS[name];
    const write = TOOL_CATALOGUE[name].write;
    server.registerTool(
      name,
      {
        title: impl.title,
        description: impl.description,
        inputSchema: INPUTS[name],
        annotations: { title: impl.title, readOnlyHint: !write, destructiveHint: false, openWorldHint: false },
      },
      async (args: unknown) => {
        try {
          return resultOf(await impl.run(services, { caller: actor.caller, tool: name }, args as never, signal));
        } catch (err) {
          if (err instanceof SvcError) return resultOf({ error: err.message, status: httpStatusOf(err) }, true);
          logger.error({ err, tool: name }, 'MCP tool failed');
          return resultOf({ error: 'internal error', status: 500 }, true);
        }
      },
    );
  }
  return server;
}
