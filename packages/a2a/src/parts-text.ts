/**
 * What the model reads of a remote agent's answer: the text of its parts, structured data as
 * JSON, a file as a one-line mention (the bytes are not inlined).
 */
import type { Artifact, Message, Part } from "@a2a-js/sdk";

/** One part as text. */
export function partText(part: Part): string {
  const content = part.content;
  switch (content?.$case) {
    case "text":
      return content.value;
    case "data":
      return JSON.stringify(content.value ?? null);
    case "url":
      return `[file${part.filename === "" ? "" : ` ${part.filename}`}${part.mediaType === "" ? "" : ` (${part.mediaType})`}: ${content.value}]`;
    case "raw":
      return `[file${part.filename === "" ? "" : ` ${part.filename}`}${part.mediaType === "" ? "" : ` (${part.mediaType})`}, ${content.value.length} bytes, not shown]`;
    default:
      return "";
  }
}

/** The text of a list of parts, one part per line. */
export function partsText(parts: readonly Part[]): string {
  return parts
    .map(partText)
    .filter((text) => text !== "")
    .join("\n");
}

/** The text of a message (empty when there is none). */
export function messageText(message: Message | undefined): string {
  return message === undefined ? "" : partsText(message.parts);
}

/** The artifacts as text: each under its name when it has one. */
export function artifactsText(artifacts: readonly Artifact[]): string {
  return artifacts
    .map((artifact) => {
      const text = partsText(artifact.parts);
      return artifacts.length > 1 && artifact.name !== "" ? `${artifact.name}:\n${text}` : text;
    })
    .filter((text) => text !== "")
    .join("\n\n");
}
