/**
 * An agent's view of svc in tests: the official MCP SDK client over Streamable HTTP on `/api/v1/mcp`, signed in
 * with an API key (or any headers), as every test that calls a tool needs it.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

type Json = Record<string, unknown>;

/** What tools/call answers, as the tests read it. */
export interface ToolResult {
  isError?: boolean;
  structuredContent?: Json;
  content: { type: string; text?: string }[];
}

/** One connected MCP session. */
export interface McpSession {
  readonly client: Client;
  /** Calls a tool; a tool error is an answer with `isError`, not a rejection. */
  call(name: string, args?: Json): Promise<ToolResult>;
  /** The names tools/list shows this caller. */
  toolNames(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Connects to the MCP endpoint of the server at `serverURL` as the holder of API key `key` (or with `headers` as
 * given, e.g. a session cookie). The caller closes the session.
 */
export async function connectMcp(
  serverURL: string,
  key: string | { headers: Record<string, string> },
): Promise<McpSession> {
  const headers = typeof key === 'string' ? { authorization: `Bearer ${key}` } : key.headers;
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverURL}/api/v1/mcp`), { requestInit: { headers } }),
  );
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    close: () => client.close(),
  };
}
