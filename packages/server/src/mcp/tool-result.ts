/**
 * What an MCP tool returns: a short text for the model or person reading it, the same data as
 * `structuredContent` for a program, and failures as `isError` results carrying the API's typed
 * `{ code, message, details? }` (never a stack), so a client sees the same codes as on `/v1`.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toHttpError } from "../http-error.ts";

/** A successful result: `text` for reading, `data` for programs. */
export function toolResult(text: string, data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: data };
}

/**
 * A failed call as a tool error: the typed error the `/v1` API would answer with, never a stack,
 * and the HTTP status it has there (`httpStatus`: 429 for a principal's `QuotaExceeded`).
 */
export function toolError(error: unknown): CallToolResult {
  const http = toHttpError(error);
  // A 500 is a bug or an outage, never caused by input alone: keep its cause for the logs.
  if (http.code === "Internal") console.error("sema mcp: unhandled error", error);
  const body = http.body();
  return {
    content: [{ type: "text", text: `${body.error.code}: ${body.error.message}` }],
    structuredContent: { ...body, httpStatus: http.status },
    isError: true,
  };
}

/** Run `work`, turning anything it throws into a tool error. */
export async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return toolError(error);
  }
}
