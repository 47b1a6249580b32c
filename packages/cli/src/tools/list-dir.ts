/** `list_dir`: a directory's entries, optionally its whole tree, sorted and capped. */
import { lstat } from "node:fs/promises";
import { defineTool, type ToolContext } from "@sema-agent/core";
import { z } from "zod";
import { confinePath } from "./confine-path.ts";
import { isMissing } from "./fs-helpers.ts";
import { type OpenedDirectory, openDirectoryAt } from "./safe-open.ts";
import { type FileToolsOptions, type FileToolsRoot, rootFor } from "./tool-root.ts";
import { SKIPPED_DIRECTORIES, walkTree } from "./walk-tree.ts";

/** The most entries one call returns: a listing longer than this is noise for the model. */
export const LIST_DIR_MAX_ENTRIES = 1000;

/** Past this many entries a recursive walk stops counting, so a vast tree cannot stall the call. */
const MAX_COUNTED_ENTRIES = 100_000;

const inputSchema = z.object({
  path: z
    .string()
    .default(".")
    .describe('The directory to list, relative to the working directory (default ".", the working directory).'),
  recursive: z
    .boolean()
    .default(false)
    .describe("List the whole tree below the directory, not just its direct entries (default false)."),
});

type ListDirInput = z.infer<typeof inputSchema>;

/** Creates the `list_dir` tool, confined to `root`. */
export function createListDirTool(root: FileToolsRoot, options: FileToolsOptions = {}) {
  const skipped = [...SKIPPED_DIRECTORIES].join(" and ");
  return defineTool({
    name: "list_dir",
    description:
      "List a directory inside the working directory: one entry per line, sorted by name, directories " +
      `marked with a trailing "/". With recursive, lists the whole tree as paths relative to the directory ` +
      `(${skipped} are listed but not entered; symbolic links are listed but not followed). Returns at most ` +
      `${LIST_DIR_MAX_ENTRIES} entries and says how many were left out.`,
    inputSchema,
    readOnly: true,
    idempotent: true,
    effects: "none",
    // File names are chosen by whoever wrote the files, so they are third-party text too.
    untrustedOutput: true,
    execute: (input, context) => listDirectory(root, options, input, context),
  });
}

async function listDirectory(
  rootSpec: FileToolsRoot,
  options: FileToolsOptions,
  input: ListDirInput,
  context: ToolContext,
): Promise<string> {
  const { signal } = context;
  const target = await confinePath(await rootFor(rootSpec, context), input.path, signal);
  const name = target.display;
  await options.beforeOpen?.(target);
  const directory = await openDirectoryAt(target.root, target.display).catch(async (error: unknown) => {
    if (!isMissing(error)) throw error;
    // ENOTDIR: the path itself is a file (O_DIRECTORY), or something on the way is.
    const there = await lstat(target.absolute).catch(() => undefined);
    if (there !== undefined && !there.isDirectory())
      throw new Error(`${name} is not a directory: use read_file to read a file`);
    throw new Error(`${name} does not exist`);
  });
  try {
    return await listOpened(directory, name, input, signal);
  } finally {
    await directory.close();
  }
}

async function listOpened(
  directory: OpenedDirectory,
  name: string,
  input: ListDirInput,
  signal: AbortSignal,
): Promise<string> {
  const shown: string[] = [];
  const unreadable: string[] = [];
  let total = 0;
  let countStopped = false;
  const walk = walkTree(directory, {
    recursive: input.recursive,
    signal,
    onUnreadable: (relative) => unreadable.push(relative),
  });
  for await (const entry of walk) {
    if (total === MAX_COUNTED_ENTRIES) {
      countStopped = true;
      break;
    }
    total += 1;
    if (shown.length < LIST_DIR_MAX_ENTRIES) {
      shown.push(entry.kind === "directory" ? `${entry.relative}/` : entry.relative);
    }
  }

  if (total === 0) return `[${name} is empty]`;
  const notes: string[] = [];
  const omitted = total - shown.length;
  if (countStopped) notes.push(`[more than ${omitted} more entries not shown: list a subdirectory instead]`);
  else if (omitted > 0) notes.push(`[${omitted} more entries not shown: list a subdirectory instead]`);
  if (unreadable.length > 0) notes.push(`[could not read: ${unreadable.join(", ")}]`);
  return [...shown, ...notes].join("\n");
}
