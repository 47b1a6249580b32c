/** The file a writing tool (`write_file`, `append_file`) is about to write, checked and opened. */
import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import type { ToolContext } from "@sema-agent/core";
import { type ConfinedPath, confinePath, PathOutsideRootError } from "./confine-path.ts";
import { isMissing } from "./fs-helpers.ts";
import { hardLinkError, type OpenedDirectory, withParent } from "./safe-open.ts";
import { type FileToolsOptions, type FileToolsRoot, refuseProtected, rootFor } from "./tool-root.ts";

/**
 * Runs `work` on the file a tool will write: checked inside the root, not a protected file, its
 * parent opened (and, with `create`, made) through descriptors, and what is there now judged by
 * `lstat` through that parent. A directory, anything but a regular file, or a file with more than
 * one hard link in its place is refused with a clear error.
 */
export async function withFileTarget<T>(
  rootSpec: FileToolsRoot,
  options: FileToolsOptions,
  requested: string,
  context: ToolContext,
  work: (target: FileTarget) => Promise<T>,
): Promise<T> {
  const { signal } = context;
  const target = await confinePath(await rootFor(rootSpec, context), requested, signal);
  const name = target.display;
  await refuseProtected(target.absolute, name, options.protectedPaths);
  await options.beforeOpen?.(target);
  if (name === ".") throw new Error(`${name} is a directory: give the path of a file`);
  return withParent(target.root, name, { create: true }, async (parent, file) => {
    const existing = await lstat(parent.child(file)).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (existing?.isDirectory()) throw new Error(`${name} is a directory: give the path of a file`);
    // confinePath resolved every link, so a link here was put there since: do not write through it.
    if (existing?.isSymbolicLink())
      throw new PathOutsideRootError(`${name} changed while it was being opened: refused`);
    if (existing !== undefined && !existing.isFile()) throw new Error(`${name} exists and is not a regular file`);
    if (existing !== undefined && existing.nlink > 1) throw hardLinkError(name, existing.nlink);
    return work({ target, existing, parent, file });
  });
}

/** What {@link withFileTarget} hands to a writing tool. */
export interface FileTarget {
  target: ConfinedPath;
  /** What is there now (undefined: nothing). */
  existing: Stats | undefined;
  /** The open parent directory, and the file's name in it. */
  parent: OpenedDirectory;
  file: string;
}
