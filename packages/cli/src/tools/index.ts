/**
 * The built-in file tools of the `sema` CLI's default agent: read, list, search, write and append,
 * all confined to one working directory.
 */
import type { Tool } from "@sema-agent/core";
import { createAppendFileTool } from "./append-file.ts";
import { createListDirTool } from "./list-dir.ts";
import { createReadFileTool } from "./read-file.ts";
import { createSearchTextTool } from "./search-text.ts";
import type { FileToolsOptions, FileToolsRoot } from "./tool-root.ts";
import { createWriteFileTool } from "./write-file.ts";

export { createAppendFileTool } from "./append-file.ts";
export { confinePath, PathOutsideRootError } from "./confine-path.ts";
export { createListDirTool } from "./list-dir.ts";
export { createReadFileTool } from "./read-file.ts";
export { createSearchTextTool } from "./search-text.ts";
export type { FileToolsOptions, FileToolsRoot } from "./tool-root.ts";
export { type WorkspacePer, workspaceName, workspaceResolver } from "./workspaces.ts";
export { createWriteFileTool } from "./write-file.ts";

/**
 * The five file tools — `read_file`, `list_dir`, `search_text`, `write_file`, `append_file` — bound
 * to `root`: one directory (`sema run` passes the working directory), or a resolver from the call's
 * context (principal, task) to a directory, made with mode 0700 on first use (`sema serve` and
 * `sema worker` give each principal, or each task, its own workspace). Every path they are given is
 * resolved against the root, and one that leads outside it — lexically, through a symbolic link,
 * through a link swapped in while it is opened, or through a hard link — is refused with an error.
 */
export function createFileTools(root: FileToolsRoot, options: FileToolsOptions = {}): Tool[] {
  return [
    createReadFileTool(root, options),
    createListDirTool(root, options),
    createSearchTextTool(root, options),
    createWriteFileTool(root, options),
    createAppendFileTool(root, options),
  ];
}
