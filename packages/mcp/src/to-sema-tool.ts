/**
 * One MCP tool as a Sema `Tool`: its schema checked here before any call, its output fenced as
 * untrusted (unless the host marked the server trusted), its calls egress, its annotations taken only as far as they claim safety, and its failures typed.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonValue, Tool, ToolContext } from "@sema-agent/core";
import { resultText } from "./content-text.ts";
import { jsonSchemaInput, type McpArguments, type SchemaCompiler } from "./json-schema-input.ts";
import type { McpSession } from "./mcp-session.ts";
import { McpToolError } from "./mcp-tool-error.ts";
import type { McpToolOverride } from "./options.ts";

export interface ToolMapping {
  session: McpSession;
  compiler: SchemaCompiler;
  /** The Sema name, already sanitized and unique. */
  name: string;
  override: McpToolOverride | undefined;
  timeoutMs: number | undefined;
  /** The host's configuration says the server's output is trusted text (not fenced). */
  trusted?: boolean;
  /** An HTTP server's host: where every call goes, for the egress allowlist. */
  host?: string;
}

/**
 * A tool whose output is third-party text reports its failures in third-party text too. The tool
 * is declared `untrustedOutput`, so the harness fences its error results as it fences its output.
 */
function toolFailure(text: string, name: string, server: string): McpToolError {
  return new McpToolError(
    "tool-error",
    `The MCP tool ${name} reported an error:\n${text === "" ? "(no details)" : text}`,
    {
      server,
      tool: name,
      details: { text },
    },
  );
}

export function toSemaTool(mcp: McpTool, mapping: ToolMapping): Tool<McpArguments> {
  const { session, name, override } = mapping;
  // Sent as is: it is the server's contract, and the model should see what the server checks.
  const jsonSchema = mcp.inputSchema as { [key: string]: JsonValue };
  const timeoutMs = override?.timeoutMs ?? mapping.timeoutMs;
  const tool: Tool<McpArguments> = {
    name,
    description: mcp.description ?? mcp.title ?? mcp.annotations?.title ?? mcp.name,
    inputSchema: jsonSchemaInput(mcp.inputSchema, mapping.compiler),
    jsonSchema,
    untrustedOutput: mapping.trusted !== true,
    // Its arguments go to the server, which may pass them on: a read is still a send.
    egress: override?.egress ?? true,
    async execute(input: McpArguments, context: ToolContext): Promise<string> {
      const result = await session.call({
        mcpName: mcp.name,
        toolName: name,
        args: input,
        signal: context.signal,
        timeoutMs,
        traceparent: context.traceparent,
      });
      const text = resultText(result);
      if (result.isError === true) throw toolFailure(text, name, session.label);
      return text;
    },
  };
  // A hint of safety is believed only when stated; the host's override has the last word.
  const readOnly = override?.readOnly ?? (mcp.annotations?.readOnlyHint === true ? true : undefined);
  const idempotent = override?.idempotent ?? (mcp.annotations?.idempotentHint === true ? true : undefined);
  if (readOnly !== undefined) tool.readOnly = readOnly;
  if (idempotent !== undefined) tool.idempotent = idempotent;
  if (timeoutMs !== undefined) tool.timeoutMs = timeoutMs;
  if (mapping.host !== undefined) tool.egressHosts = [mapping.host];
  return tool;
}
