/** `read_file`: a text file's lines, windowed by `offset`/`limit` and capped in size. */
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { defineTool, type ToolContext } from "@sema-agent/core";
import { z } from "zod";
import { confinePath } from "./confine-path.ts";
import { formatBytes, isMissing, looksBinary } from "./fs-helpers.ts";
import { hardLinkError, withParent } from "./safe-open.ts";
import { type FileToolsOptions, type FileToolsRoot, rootFor } from "./tool-root.ts";

/** The most text one call returns: enough for a large source file, small enough for a context window. */
export const READ_FILE_MAX_BYTES = 256 * 1024;

/** Read in chunks so a huge file is never loaded whole and the signal is checked as it goes. */
const CHUNK_BYTES = 64 * 1024;

const inputSchema = z.object({
  path: z.string().min(1).describe("The file to read, relative to the working directory."),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("The first line to return, counting from 1 (default 1). Use it to read on where a capped read stopped."),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("The most lines to return (default: to the end of the file, within the 256 KiB cap)."),
});

type ReadFileInput = z.infer<typeof inputSchema>;

/** Creates the `read_file` tool, confined to `root`. */
export function createReadFileTool(root: FileToolsRoot, options: FileToolsOptions = {}) {
  return defineTool({
    name: "read_file",
    description:
      "Read a UTF-8 text file inside the working directory and return its text. Returns at most 256 KiB " +
      "per call; a note at the end says when there is more and which offset to read on from. Use offset " +
      "and limit (in lines) to read part of a large file. Binary files are not shown, only reported.",
    inputSchema,
    readOnly: true,
    idempotent: true,
    effects: "none",
    // A file's contents are whatever someone put there: the model must not take them as instructions.
    untrustedOutput: true,
    execute: (input, context) => readFileText(root, options, input, context),
  });
}

async function readFileText(
  rootSpec: FileToolsRoot,
  options: FileToolsOptions,
  input: ReadFileInput,
  context: ToolContext,
): Promise<string> {
  const { signal } = context;
  const target = await confinePath(await rootFor(rootSpec, context), input.path, signal);
  const name = target.display;
  await options.beforeOpen?.(target);
  if (target.display === ".") throw new Error(`${name} is a directory: use list_dir to see what it holds`);
  return withParent(target.root, target.display, {}, async (parent, file) => {
    // Opened without blocking (a FIFO) and without following a link; then judged by what was opened.
    const { handle, stats } = await parent.openFile(file, constants.O_RDONLY).catch((error: unknown) => {
      throw isMissing(error) ? new Error(`${name} does not exist`) : error;
    });
    try {
      if (stats.isDirectory()) throw new Error(`${name} is a directory: use list_dir to see what it holds`);
      if (!stats.isFile()) throw new Error(`${name} is not a regular file`);
      if (stats.nlink > 1 && options.allowHardLinks !== true) throw hardLinkError(name, stats.nlink);
      return await readLines(handle, { name, size: stats.size, offset: input.offset ?? 1, limit: input.limit, signal });
    } finally {
      await handle.close();
    }
  }).catch((error: unknown) => {
    throw isMissing(error) ? new Error(`${name} does not exist`) : error;
  });
}

interface Window {
  name: string;
  size: number;
  offset: number;
  limit: number | undefined;
  signal: AbortSignal;
}

/** Streams the file, keeps the lines of the window, and stops at the limit or the byte cap. */
async function readLines(handle: FileHandle, window: Window): Promise<string> {
  const { name, size, offset, limit, signal } = window;
  const buffer = Buffer.alloc(CHUNK_BYTES);
  // Not fatal: a stray invalid byte becomes U+FFFD rather than hiding the whole file.
  const decoder = new TextDecoder("utf-8");
  const lines: string[] = [];
  let used = 0; // bytes of the kept lines, newlines included
  let line = 1; // the number of the line being read
  let partial = ""; // its text so far, kept only once inside the window
  let midLine = false; // whether anything follows the last newline read
  let position = 0;
  let stop: "eof" | "limit" | "cap" = "eof";
  let more = false; // whether text follows the window when stopped at the limit
  let cutLine = false; // whether the single line shown was cut at the cap

  /** Takes in decoded text; returns true when the window is complete. */
  const consume = (text: string): boolean => {
    let from = 0;
    for (;;) {
      const newline = text.indexOf("\n", from);
      const end = newline === -1 ? text.length : newline;
      if (end > from) midLine = true;
      if (line >= offset) {
        partial += text.slice(from, end);
        if (used + Buffer.byteLength(partial) > READ_FILE_MAX_BYTES) {
          // One line larger than the cap on its own: show its head rather than nothing.
          if (lines.length === 0) {
            lines.push(truncateUtf8(partial, READ_FILE_MAX_BYTES));
            cutLine = true;
          }
          stop = "cap";
          return true;
        }
      }
      if (newline === -1) return false;
      if (line >= offset) {
        lines.push(partial);
        used += Buffer.byteLength(partial) + 1;
        partial = "";
      }
      line += 1;
      midLine = false;
      from = newline + 1;
      if (lines.length === limit) {
        stop = "limit";
        more = from < text.length || position < size;
        return true;
      }
    }
  };

  for (;;) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) {
      if (!consume(decoder.decode()) && line >= offset && midLine) lines.push(partial);
      break;
    }
    const chunk = buffer.subarray(0, bytesRead);
    if (position === 0 && looksBinary(chunk)) {
      return `[${name} is a binary file (${formatBytes(size)}); its contents are not shown]`;
    }
    position += bytesRead;
    if (consume(decoder.decode(chunk, { stream: true }))) break;
  }

  const first = offset;
  const last = offset + lines.length - 1;
  let body: string;
  let note: string | undefined;
  if (stop === "eof") {
    const total = line - 1 + (midLine ? 1 : 0);
    if (total === 0) return `[${name} is empty]`;
    if (offset > total) throw new Error(`offset ${offset} is past the end of ${name}, which has ${total} lines`);
    // Restoring the final newline makes a whole-file read return the file's text exactly.
    body = lines.join("\n") + (midLine ? "" : "\n");
    if (offset > 1 || limit !== undefined) note = `[lines ${first}–${last} of ${total}: end of file]`;
  } else if (stop === "limit") {
    body = `${lines.join("\n")}\n`;
    note = more
      ? `[lines ${first}–${last} shown; the file goes on: read on with offset=${last + 1}]`
      : `[lines ${first}–${last} of ${last}: end of file]`;
  } else if (cutLine) {
    body = lines.join("\n");
    note = `[line ${first} is longer than ${formatBytes(READ_FILE_MAX_BYTES)}: only its head is shown]`;
  } else {
    body = `${lines.join("\n")}\n`;
    note =
      `[output capped at ${formatBytes(READ_FILE_MAX_BYTES)} (the file is ${formatBytes(size)}): ` +
      `lines ${first}–${last} shown; read on with offset=${last + 1}]`;
  }
  if (note === undefined) return body;
  return body.endsWith("\n") ? body + note : `${body}\n${note}`;
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8 without splitting a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  // Streaming mode holds back a trailing incomplete sequence instead of turning it into U+FFFD.
  return new TextDecoder("utf-8").decode(Buffer.from(text).subarray(0, maxBytes), { stream: true });
}
