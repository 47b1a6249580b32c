/**
 * The built-in file tools of the `sema` CLI's default agent: read, list, search, write and append,
 * all confined to one working directory.
 */
import type { Tool } from "@sema-agent/core";
import { createAppendFileTool } from "./append-file.ts";
import { createListDirTool } from "./list-dir.ts";
import { createReadFileTool } from "./read-file.ts";
import { createSearchTextTool } from "./search-text.ts";
import { createWriteFileTool } from "./write-file.ts";

export { createAppendFileTool } from "./append-file.ts";
export { confinePath, PathOutsideRootError } from "./confine-path.ts";
export { createListDirTool } from "./list-dir.ts";
export { createReadFileTool } from "./read-file.ts";
export { createSearchTextTool } from "./search-text.ts";
export { createWriteFileTool } from "./write-file.ts";

/**
 * The five file tools — `read_file`, `list_dir`, `search_text`, `write_file`, `append_file` — bound
 * to `root` (the CLI passes `process.cwd()`). Every path they are given is resolved against `root`,
 * and one that leads outside it, lexically or through a symbolic link, is refused with an error.
 */
export function createFileTools(root: string): Tool[] {
  return [
    createReadFileTool(root),
    createListDirTool(root),
    createSearchTextTool(root),
    createWriteFileTool(root),
    createAppendFileTool(root),
  ];
}
