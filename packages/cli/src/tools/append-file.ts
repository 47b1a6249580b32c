/** `append_file`: adds text to the end of a file, creating it when missing. */
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { defineTool } from "@sema-agent/core";
import { z } from "zod";
import { fileTarget, SAFE_OPEN_FLAGS } from "./fs-helpers.ts";

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
export function createAppendFileTool(root: string) {
  return defineTool({
    name: "append_file",
    description:
      "Add UTF-8 text at the end of a file inside the working directory, creating the file (and its parent " +
      "directories) if it does not exist. Each call appends again. To replace a file's content, use write_file.",
    inputSchema,
    // Not idempotent: a re-run appends the content a second time.
    execute: (input, context) => appendToFile(root, input, context.signal),
  });
}

async function appendToFile(root: string, input: AppendFileInput, signal: AbortSignal): Promise<string> {
  const { target, existing } = await fileTarget(root, input.path, signal);
  const name = target.display;

  await mkdir(path.dirname(target.absolute), { recursive: true });
  const data = Buffer.from(input.content, "utf8");
  const handle = await open(
    target.absolute,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | SAFE_OPEN_FLAGS,
    0o666,
  );
  let size: number;
  try {
    await handle.appendFile(data, { signal });
    ({ size } = await handle.stat());
  } finally {
    await handle.close();
  }
  const created = existing === undefined ? ", created it" : "";
  return `Appended ${data.byteLength} bytes to ${name} (now ${size} bytes${created})`;
}
