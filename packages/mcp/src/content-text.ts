/**
 * A `tools/call` result as the text the model reads. Text is passed verbatim; binary content
 * becomes a short placeholder (the model cannot use base64, and it would eat the output cap);
 * resources are named by URI with their text when they carry some.
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";

const BYTES = new Intl.NumberFormat("en-US");

function sizeNote(base64: string): string {
  return `${BYTES.format(base64.length)} bytes base64`;
}

function describe(parts: (string | undefined)[]): string {
  return parts.filter((part) => part !== undefined && part !== "").join(", ");
}

/** One content block as text. */
export function contentBlockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${describe([block.mimeType, sizeNote(block.data)])}]`;
    case "resource_link": {
      const head = `[resource link: ${describe([block.uri, block.name, block.mimeType])}]`;
      return block.description === undefined || block.description === "" ? head : `${head}\n${block.description}`;
    }
    case "resource": {
      const { resource } = block;
      if ("text" in resource && typeof resource.text === "string") {
        return `[resource: ${describe([resource.uri, resource.mimeType])}]\n${resource.text}`;
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? sizeNote(resource.blob) : undefined;
      return `[resource: ${describe([resource.uri, resource.mimeType, blob])}]`;
    }
    default: {
      // A content type newer than this SDK: say it was there rather than drop it silently.
      const type = (block as { type?: unknown }).type;
      return `[${typeof type === "string" ? type : "unknown"} content]`;
    }
  }
}

/**
 * The whole result: every block's text joined by blank lines, then `structuredContent` as JSON
 * when no block was text (a server that sends both puts the same data in the text, by the spec's
 * advice, and the model should not read it twice).
 */
export function resultText(result: CallToolResult | { toolResult: unknown }): string {
  if (!("content" in result)) return JSON.stringify(result.toolResult) ?? "";
  const content: ContentBlock[] = result.content ?? [];
  const parts = content.map(contentBlockText);
  const hasText = content.some((block) => block.type === "text");
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return parts.join("\n\n");
}
