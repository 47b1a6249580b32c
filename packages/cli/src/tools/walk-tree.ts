/** A sorted, depth-first walk of a directory tree, shared by `list_dir` and `search_text`. */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import type { OpenedDirectory } from "./safe-open.ts";

/**
 * Directories a recursive walk lists but does not descend into: version-control internals and
 * installed dependencies are large, rarely what the model is after, and would crowd out the rest.
 */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** What an entry is, as seen without following symbolic links. */
export type EntryKind = "directory" | "file" | "symlink" | "other";

/** One entry met by {@link walkTree}. */
export interface TreeEntry {
  /** Relative to the walked directory, `/`-separated. */
  relative: string;
  /** The open directory holding it (open until the walk moves on) and its name there. */
  parent: OpenedDirectory;
  name: string;
  kind: EntryKind;
}

/** How {@link walkTree} walks. */
export interface WalkOptions {
  recursive: boolean;
  /** Checked before every directory is read. */
  signal: AbortSignal;
  /** A subdirectory that could not be read (e.g. permissions): reported, and the walk goes on. */
  onUnreadable?: (relative: string, error: unknown) => void;
}

/**
 * Yields the entries of `directory`, siblings sorted by name (code-unit order, so the result is the
 * same on every machine), each directory followed by its contents when `recursive`. Symbolic links
 * are yielded but never followed, and each subdirectory is opened through its parent's descriptor
 * and verified inside the root: a walk cannot loop, nor leave the directory it started in, even if
 * the tree changes under it. Failing to read `directory` itself throws.
 */
export async function* walkTree(directory: OpenedDirectory, options: WalkOptions): AsyncGenerator<TreeEntry> {
  yield* walkDirectory(directory, "", options);
}

async function* walkDirectory(
  directory: OpenedDirectory,
  prefix: string,
  options: WalkOptions,
): AsyncGenerator<TreeEntry> {
  options.signal.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(directory.via, { withFileTypes: true });
  } catch (error) {
    if (prefix === "") throw error;
    options.onUnreadable?.(prefix, error);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const relative = prefix + entry.name;
    const kind = kindOf(entry);
    yield { relative, parent: directory, name: entry.name, kind };
    if (options.recursive && kind === "directory" && !SKIPPED_DIRECTORIES.has(entry.name)) {
      let child: OpenedDirectory;
      try {
        child = await directory.openDirectory(entry.name);
      } catch (error) {
        options.onUnreadable?.(relative, error);
        continue;
      }
      try {
        yield* walkDirectory(child, `${relative}/`, options);
      } finally {
        await child.close();
      }
    }
  }
}

function kindOf(entry: Dirent): EntryKind {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "directory";
  if (entry.isFile()) return "file";
  return "other";
}
