/** `write_file`: creates or replaces a file, atomically. */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { defineTool } from "@sema-agent/core";
import { z } from "zod";
import { fileTarget, SAFE_OPEN_FLAGS } from "./fs-helpers.ts";

const inputSchema = z.object({
  path: z
    .string()
    .min(1)
    .describe("The file to write, relative to the working directory. Missing parent directories are created."),
  content: z.string().describe("The file's complete new content (UTF-8). It replaces whatever the file held."),
});

type WriteFileInput = z.infer<typeof inputSchema>;

/** Creates the `write_file` tool, confined to `root`. */
export function createWriteFileTool(root: string) {
  return defineTool({
    name: "write_file",
    description:
      "Create a file inside the working directory, or replace an existing file's whole content, with the " +
      "given UTF-8 text. Creates missing parent directories. The write is atomic: readers see the old " +
      "content or the new, never a mix. To add to the end of a file instead, use append_file.",
    inputSchema,
    // The same path and content leave the same file and return the same result, so a re-run after a
    // crash is harmless.
    idempotent: true,
    execute: (input, context) => writeFileAtomically(root, input, context.signal),
  });
}

async function writeFileAtomically(root: string, input: WriteFileInput, signal: AbortSignal): Promise<string> {
  const { target, existing } = await fileTarget(root, input.path, signal);
  const name = target.display;

  const directory = path.dirname(target.absolute);
  await mkdir(directory, { recursive: true });
  const data = Buffer.from(input.content, "utf8");
  // The temporary file sits beside the target so the rename stays on one filesystem, hence atomic.
  const temporary = path.join(directory, `.${path.basename(target.absolute)}.${randomBytes(6).toString("hex")}.tmp`);
  let renamed = false;
  try {
    const handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | SAFE_OPEN_FLAGS,
      0o666,
    );
    try {
      await handle.writeFile(data, { signal });
      // A replaced file keeps its permissions (an executable script stays executable).
      if (existing !== undefined) await handle.chmod(existing.mode & 0o7777);
      // On disk before the rename, so a crash cannot leave the new name pointing at an empty file.
      await handle.sync();
    } finally {
      await handle.close();
    }
    signal.throwIfAborted();
    await rename(temporary, target.absolute);
    renamed = true;
  } finally {
    if (!renamed) await rm(temporary, { force: true }).catch(() => undefined);
  }
  // The same words whether the file was created or replaced: a re-run must return what the first run did.
  return `Wrote ${data.byteLength} bytes to ${name}`;
}
