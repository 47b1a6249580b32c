/**
 * Opening a confined path so that what is opened is what was checked, even if the tree changes in
 * between. `confinePath` checks names; this module checks descriptors:
 *
 * - On Linux every step goes through the descriptor of the directory opened before it
 *   (`/proc/self/fd/N/name`, the `openat` of a language without `openat`), each component with
 *   `O_NOFOLLOW`: an ancestor swapped for a symbolic link after the check makes the open fail
 *   instead of following the link outside.
 * - After the open, the descriptor's real path (`readlink /proc/self/fd/N`) must still lie inside
 *   the root (a directory renamed out of the root while it was being walked is caught here).
 * - Files with more than one hard link are refused for writing and, unless allowed, for reading:
 *   a hard link is an outside inode with an inside name, which no path check can see.
 *
 * Elsewhere (no `/proc`), the opens are path-based with `O_NOFOLLOW` on the last component and the
 * opened file is compared (device and inode) with what the checked path names after the open.
 */
import { existsSync, constants as fsConstants, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isInside, PathOutsideRootError } from "./confine-path.ts";
import { hasErrorCode, SAFE_OPEN_FLAGS } from "./fs-helpers.ts";

const O_DIRECTORY = fsConstants.O_DIRECTORY ?? 0;

let procFdAvailable: boolean | undefined;

/** Whether descriptors can be named by path (`/proc/self/fd/N`): Linux. */
export function hasProcFd(): boolean {
  procFdAvailable ??= process.platform === "linux" && existsSync("/proc/self/fd");
  return procFdAvailable;
}

/** The path that reaches the file a descriptor is open on, whatever happened to its name since. */
function fdPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

/** Thrown when the tree changed between the check and the open (a race, or a link planted to escape). */
function changedUnderfoot(display: string): PathOutsideRootError {
  return new PathOutsideRootError(
    `${display} changed while it was being opened (a symbolic link or a moved directory on the way): refused`,
  );
}

/**
 * Throws unless the open descriptor's real path lies inside `root` (closing it first). On systems
 * without `/proc/self/fd` it compares the descriptor with the file `expected` names now.
 */
export async function verifyInside(handle: FileHandle, root: string, display: string, expected: string): Promise<void> {
  let inside: boolean;
  if (hasProcFd()) {
    const real = await readlink(fdPath(handle));
    inside = isInside(real, root);
  } else {
    const [opened, named] = await Promise.all([handle.stat(), realpath(expected).then((real) => stat(real))]);
    inside = opened.dev === named.dev && opened.ino === named.ino && isInside(await realpath(expected), root);
  }
  if (!inside) {
    await handle.close();
    throw changedUnderfoot(display);
  }
}

/** An open directory inside the root, through which its entries are reached. */
export class OpenedDirectory {
  readonly #handle: FileHandle | undefined;
  /** How this directory's entries are named: its descriptor's path on Linux, else its real path. */
  readonly via: string;
  readonly root: string;
  readonly display: string;

  private constructor(handle: FileHandle | undefined, via: string, root: string, display: string) {
    this.#handle = handle;
    this.via = via;
    this.root = root;
    this.display = display;
  }

  /** Opens the root itself (its real path, as `confinePath` returned it). */
  static async openRoot(root: string): Promise<OpenedDirectory> {
    if (!hasProcFd()) return new OpenedDirectory(undefined, root, root, ".");
    const handle = await open(root, fsConstants.O_RDONLY | O_DIRECTORY);
    const real = await readlink(fdPath(handle));
    if (real !== root) {
      await handle.close();
      throw changedUnderfoot(".");
    }
    return new OpenedDirectory(handle, fdPath(handle), root, ".");
  }

  /** The path naming entry `name` of this directory. */
  child(name: string): string {
    return path.join(this.via, name);
  }

  /** Opens the subdirectory `name` (no symbolic link followed), verified inside the root. */
  async openDirectory(name: string, options: { create?: boolean } = {}): Promise<OpenedDirectory> {
    const display = this.display === "." ? name : `${this.display}/${name}`;
    const flags = fsConstants.O_RDONLY | O_DIRECTORY | SAFE_OPEN_FLAGS;
    let handle: FileHandle;
    try {
      handle = await open(this.child(name), flags);
    } catch (error) {
      if (options.create !== true || !hasErrorCode(error, "ENOENT")) throw await this.#openError(error, name, display);
      await mkdir(this.child(name)).catch((made: unknown) => {
        if (!hasErrorCode(made, "EEXIST")) throw made;
      });
      try {
        handle = await open(this.child(name), flags);
      } catch (again) {
        throw await this.#openError(again, name, display);
      }
    }
    await verifyInside(handle, this.root, display, this.child(name));
    if (hasProcFd()) return new OpenedDirectory(handle, fdPath(handle), this.root, display);
    // Without /proc a descriptor cannot name children: they are reached by the verified path.
    await handle.close();
    return new OpenedDirectory(undefined, this.child(name), this.root, display);
  }

  /**
   * Opens the file `name` with `flags` (no symbolic link followed, no blocking on a FIFO) and
   * returns it with its status, verified inside the root. Throws ENOENT-like errors as they are.
   */
  async openFile(name: string, flags: number, mode?: number): Promise<{ handle: FileHandle; stats: Stats }> {
    const display = this.display === "." ? name : `${this.display}/${name}`;
    const handle = await open(this.child(name), flags | SAFE_OPEN_FLAGS, mode).catch((error: unknown) => {
      throw mapOpenError(error, display);
    });
    await verifyInside(handle, this.root, display, this.child(name));
    try {
      return { handle, stats: await handle.stat() };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /**
   * `O_NOFOLLOW` meeting a symbolic link (ELOOP, or ENOTDIR with `O_DIRECTORY`) means one
   * appeared after the check: say so rather than "not a directory".
   */
  async #openError(error: unknown, name: string, display: string): Promise<unknown> {
    if (hasErrorCode(error, "ELOOP")) return changedUnderfoot(display);
    if (!hasErrorCode(error, "ENOTDIR")) return error;
    const there = await lstat(this.child(name)).catch(() => undefined);
    return there?.isSymbolicLink() === true ? changedUnderfoot(display) : error;
  }

  async close(): Promise<void> {
    await this.#handle?.close();
  }
}

/** `O_NOFOLLOW` meeting a symbolic link means one appeared after the check: say so. */
function mapOpenError(error: unknown, display: string): unknown {
  return hasErrorCode(error, "ELOOP") ? changedUnderfoot(display) : error;
}

/**
 * Opens the directory at `relative` (from `confinePath`: `/`-separated, `.` for the root) one
 * component at a time from the root. With `create`, missing components are made on the way.
 */
export async function openDirectoryAt(
  root: string,
  relative: string,
  options: { create?: boolean } = {},
): Promise<OpenedDirectory> {
  let current = await OpenedDirectory.openRoot(root);
  for (const name of components(relative)) {
    try {
      const next = await current.openDirectory(name, options);
      await current.close();
      current = next;
    } catch (error) {
      await current.close();
      throw error;
    }
  }
  return current;
}

/** The components of a relative path from `confinePath` (none for `.`). */
export function components(relative: string): string[] {
  return relative === "." ? [] : relative.split("/").filter((name) => name !== "" && name !== ".");
}

/** The refusal for a file with more than one hard link. */
export function hardLinkError(display: string, links: number): Error {
  return new PathOutsideRootError(
    `${display} has ${links} hard links: it may be a file outside the working directory under another name, so it is refused`,
  );
}

/**
 * Runs `work` with the open parent directory of the confined file `display` (`/`-separated, from
 * `confinePath`) and the file's own name, then closes the parent. `create` makes missing parents.
 */
export async function withParent<T>(
  root: string,
  display: string,
  options: { create?: boolean },
  work: (parent: OpenedDirectory, name: string) => Promise<T>,
): Promise<T> {
  const parts = components(display);
  const name = parts.pop();
  if (name === undefined) throw new Error(". is a directory: give the path of a file");
  const parent = await openDirectoryAt(root, parts.length === 0 ? "." : parts.join("/"), options);
  try {
    return await work(parent, name);
  } finally {
    await parent.close();
  }
}
