/**
 * `@sema-agent/mcp`: the tools of any MCP server (stdio or streamable HTTP) as Sema tools.
 *
 * @module @sema-agent/mcp
 */
export { connectMcp, type McpConnection, type McpSkippedTool } from "./connect-mcp.ts";
export { contentBlockText, resultText } from "./content-text.ts";
export type { McpArguments } from "./json-schema-input.ts";
export { type McpFailureReason, McpToolError, type McpToolErrorOptions } from "./mcp-tool-error.ts";
export type {
  McpCommonOptions,
  McpConnectOptions,
  McpHttpServer,
  McpServerInfo,
  McpStdioServer,
  McpToolOverride,
} from "./options.ts";
export { assignToolNames, sanitizeToolName } from "./tool-names.ts";
