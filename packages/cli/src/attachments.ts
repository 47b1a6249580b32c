/**
 * `sema run --attach <path>`: files from the command line as content parts. The media type comes
 * from the file's extension (a short list of what models take); anything else is sent as
 * `application/octet-stream`, which a provider may refuse: the CLI does not guess from the bytes.
 */
import { readFileSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import type { ContentPart } from "@sema-agent/core";
import { UsageError } from "./context.ts";

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
};

/** The objective and each attached file (relative to `cwd`) as content parts, text first. */
export function withAttachments(objective: string, paths: readonly string[], cwd: string): string | ContentPart[] {
  if (paths.length === 0) return objective;
  const parts: ContentPart[] = [{ type: "text", text: objective }];
  for (const path of paths) {
    let data: Uint8Array;
    try {
      data = new Uint8Array(readFileSync(resolve(cwd, path)));
    } catch (error) {
      throw new UsageError(`--attach ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    const mediaType = MEDIA_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
    parts.push(
      mediaType.startsWith("image/")
        ? { type: "image", data, mediaType }
        : { type: "file", data, mediaType, filename: basename(path) },
    );
  }
  return parts;
}
