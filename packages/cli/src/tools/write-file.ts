/** `write_file`: creates or replaces a file, atomically. */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { defineTool, type ToolContext } from "@sema-agent/core";
import { z } from "zod";
import { withFileTarget } from "./file-target.ts";
import type { FileToolsOptions, FileToolsRoot } from "./tool-root.ts";

const inputSchema = z.object({
  path: z
    .string()
    .min(1)
    .describe("The file to write, relative to the working directory. Missing parent directories are created."),
  content: z.string().describe("The file's complete new content (UTF-8). It replaces whatever the file held."),
});

type WriteFileInput = z.infer<typeof inputSchema>;

/** Creates the `write_file` tool, confined to `root`. */
export function createWriteFileTool(root: FileToolsRoot, options: FileToolsOptions = {}) {
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
    // Changes files in the workspace: a tainted call is held by the provenance policy.
    effects: "local",
    execute: (input, context) => writeFileAtomically(root, options, input, context),
  });
}

async function writeFileAtomically(
  root: FileToolsRoot,
  options: FileToolsOptions,
  input: WriteFileInput,
  context: ToolContext,
): Promise<string> {
  const { signal } = context;
  return withFileTarget(root, options, input.path, context, async ({ target, existing, parent, file }) => {
    const data = Buffer.from(input.content, "utf8");
    // The temporary file sits beside the target so the rename stays on one filesystem, hence atomic;
    // both are named through the parent's descriptor, so neither can land outside.
    const temporary = `.${file}.${randomBytes(6).toString("hex")}.tmp`;
    let renamed = false;
    try {
      const { handle } = await parent.openFile(
        temporary,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
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
      await rename(parent.child(temporary), parent.child(file));
      renamed = true;
    } finally {
      if (!renamed) await rm(parent.child(temporary), { force: true }).catch(() => undefined);
    }
    // The same words whether the file was created or replaced: a re-run must return what the first run did.
    return `Wrote ${data.byteLength} bytes to ${target.display}`;
  });
}
