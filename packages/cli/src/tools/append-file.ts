/** `append_file`: adds text to the end of a file, creating it when missing. */
import { constants } from "node:fs";
import { defineTool, type ToolContext } from "@sema-agent/core";
import { z } from "zod";
import { withFileTarget } from "./file-target.ts";
import { hardLinkError } from "./safe-open.ts";
import type { FileToolsOptions, FileToolsRoot } from "./tool-root.ts";

const inputSchema = z.object({
  path: z
    .string()
    .min(1)
    .describe(
      "The file to append to, relative to the working directory. Created (with its parent directories) if missing.",
    ),
  content: z
    .string()
    .describe("The UTF-8 text to add at the end of the file, as is (include a trailing newline if you want one)."),
});

type AppendFileInput = z.infer<typeof inputSchema>;

/** Creates the `append_file` tool, confined to `root`. */
export function createAppendFileTool(root: FileToolsRoot, options: FileToolsOptions = {}) {
  return defineTool({
    name: "append_file",
    description:
      "Add UTF-8 text at the end of a file inside the working directory, creating the file (and its parent " +
      "directories) if it does not exist. Each call appends again. To replace a file's content, use write_file.",
    inputSchema,
    // Not idempotent: a re-run appends the content a second time.
    effects: "local",
    execute: (input, context) => appendToFile(root, options, input, context),
  });
}

async function appendToFile(
  root: FileToolsRoot,
  options: FileToolsOptions,
  input: AppendFileInput,
  context: ToolContext,
): Promise<string> {
  const { signal } = context;
  return withFileTarget(root, options, input.path, context, async ({ target, existing, parent, file }) => {
    const name = target.display;
    const data = Buffer.from(input.content, "utf8");
    const { handle, stats } = await parent.openFile(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
      0o666,
    );
    let size: number;
    try {
      // Judged again on the opened file: a link made between the lstat and the open is caught here.
      if (!stats.isFile()) throw new Error(`${name} exists and is not a regular file`);
      if (stats.nlink > 1) throw hardLinkError(name, stats.nlink);
      await handle.appendFile(data, { signal });
      ({ size } = await handle.stat());
    } finally {
      await handle.close();
    }
    const created = existing === undefined ? ", created it" : "";
    return `Appended ${data.byteLength} bytes to ${name} (now ${size} bytes${created})`;
  });
}
