/**
 * `@sema-agent/server/mcp`: Sema as an MCP server — over Streamable HTTP on the API's app
 * (`mcp()` for `createApp` and `serve`) or on stdio (`serveMcpStdio`, what `sema mcp` runs).
 * Needs `@modelcontextprotocol/sdk` installed beside the server (an optional peer).
 *
 * @module @sema-agent/server/mcp
 */
export { MCP_PATH } from "./http-mount.ts";
export { mcp } from "./mcp-protocol.ts";
export { MCP_SERVER_INFO } from "./mcp-server.ts";
export { type McpStdio, type McpStdioOptions, serveMcpStdio } from "./stdio.ts";
