/**
 * Where the file tools work, and what they may never write. A root is either one fixed directory
 * (`sema run`: the working directory) or a resolver from the call's context to a directory
 * (`sema serve`/`sema worker`: a workspace per principal or per task), made on first use with mode
 * 0700 so other local users cannot look in.
 */
import { mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import type { ToolContext } from "@sema-agent/core";
import type { ConfinedPath } from "./confine-path.ts";
import { PathOutsideRootError } from "./confine-path.ts";

/** A fixed root directory, or one chosen per call (per principal, per task) from its context. */
export type FileToolsRoot = string | ((context: ToolContext) => string);

/** How the file tools behave beyond their root. */
export interface FileToolsOptions {
  /**
   * Read and search files that have more than one hard link (default false: refused by `read_file`,
   * skipped by `search_text`). Writing and appending to such a file is always refused: a hard link
   * can be an outside file under an inside name.
   */
  allowHardLinks?: boolean;
  /**
   * Files `write_file` and `append_file` refuse even inside the root, by real path: `sema run`
   * passes its store (with `-wal`, `-shm`, `-journal`) and the `sema.config.*` files.
   */
  protectedPaths?: readonly string[];
  /** The longest a regular-expression search may match before it is stopped (default 10 s). */
  regexTimeoutMs?: number;
  /** Test seam: runs after a path is checked and before it is opened (to stage a race). */
  beforeOpen?: (target: ConfinedPath) => Promise<void> | void;
}

/** The directory a call works in; a resolved one is created (mode 0700) if missing. */
export async function rootFor(root: FileToolsRoot, context: ToolContext): Promise<string> {
  if (typeof root === "string") return root;
  const directory = path.resolve(root(context));
  await mkdir(directory, { recursive: true, mode: 0o700 });
  return directory;
}

/**
 * The real form of a path that may not exist yet: its directory's real path (when it exists) and
 * its name, lower-cased so a case-insensitive file system cannot spell a protected file otherwise.
 */
async function comparable(file: string): Promise<string> {
  const absolute = path.resolve(file);
  const directory = await realpath(path.dirname(absolute)).catch(() => path.dirname(absolute));
  return path.join(directory, path.basename(absolute)).toLowerCase();
}

/** Throws when `absolute` (a confined, real path) is one of the protected files. */
export async function refuseProtected(
  absolute: string,
  display: string,
  protectedPaths: readonly string[] | undefined,
): Promise<void> {
  if (protectedPaths === undefined || protectedPaths.length === 0) return;
  const candidate = await comparable(absolute);
  const denied = await Promise.all(protectedPaths.map(comparable));
  if (denied.includes(candidate))
    throw new PathOutsideRootError(`${display} is the agent host's own store or configuration: it cannot be written`);
}
