/**
 * Confinement of the file tools to one working directory. A path the model names is resolved
 * against the root and refused when it escapes it: lexically (`..`, an absolute path elsewhere) or
 * physically (a symbolic link anywhere along it — an ancestor, the final component, a dangling
 * link about to be written through — that leads outside).
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { isMissing } from "./fs-helpers.ts";

/** Linux's MAXSYMLINKS: more hops than this is a loop, which the OS would report as ELOOP. */
const MAX_SYMLINK_HOPS = 40;

/** Thrown when a path would leave the working directory; the harness shows its message to the model. */
export class PathOutsideRootError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PathOutsideRootError";
  }
}

/** A path that has been checked to lie inside the root. */
export interface ConfinedPath {
  /**
   * The absolute path to operate on: every existing component resolved to its real form (no
   * symbolic links left), followed by the components that do not exist yet.
   */
  absolute: string;
  /** `absolute` relative to the root, with `/` separators (`.` for the root itself): for messages. */
  display: string;
  /** The root's real path. */
  root: string;
}

/**
 * Resolves `requested` against `root` and returns where it really leads, or throws a
 * {@link PathOutsideRootError} when that is outside `root`.
 *
 * The tools must operate on the returned path, never on `requested`: it is the path that was
 * checked, with the symbolic links already followed. They open it with `safe-open.ts`, from `root`
 * through the components of `display`, so that a change to the tree after this check is caught.
 */
export async function confinePath(root: string, requested: string, signal?: AbortSignal): Promise<ConfinedPath> {
  signal?.throwIfAborted();
  const shown = JSON.stringify(requested);
  // The OS would cut the path at a NUL; refuse it outright rather than check one path and open another.
  if (requested.includes("\0")) throw new Error(`path ${shown} contains a NUL character`);

  const lexicalRoot = path.resolve(root);
  let realRoot: string;
  try {
    realRoot = await realpath(lexicalRoot);
  } catch (error) {
    if (isMissing(error)) throw new Error(`the working directory ${lexicalRoot} does not exist`);
    throw error;
  }

  // Lexical check first, before touching the disk: `..` past the root or an absolute path elsewhere.
  // The root may be spelled either way (it may itself sit behind a symlink, like /tmp on macOS).
  const lexical = path.resolve(lexicalRoot, requested);
  if (!isInside(lexical, lexicalRoot) && !isInside(lexical, realRoot)) {
    throw new PathOutsideRootError(
      `path ${shown} is outside the working directory ${lexicalRoot}: only paths inside it may be used`,
    );
  }

  const absolute = await resolvePhysically(lexical, signal);
  if (!isInside(absolute, realRoot)) {
    throw new PathOutsideRootError(
      `path ${shown} leads outside the working directory ${lexicalRoot} through a symbolic link: refused`,
    );
  }
  const relative = path.relative(realRoot, absolute);
  return { absolute, display: relative === "" ? "." : relative.split(path.sep).join("/"), root: realRoot };
}

/**
 * Whether `candidate` is `root` or below it. Both must be absolute and normalized. The trailing
 * separator is what keeps `/root-evil` from counting as inside `/root`.
 */
export function isInside(candidate: string, root: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate.startsWith(prefix);
}

/**
 * Follows `target` (absolute, normalized) component by component the way the OS does, expanding
 * every symbolic link, until the path ends or a component does not exist. Unlike `realpath` it
 * also works for a path that does not exist yet — and for a dangling link, whose target is where
 * a write would land.
 */
async function resolvePhysically(target: string, signal?: AbortSignal): Promise<string> {
  const fsRoot = path.parse(target).root;
  let current = fsRoot;
  // Components still to walk, next one last (so pop() takes it).
  const pending = target.slice(fsRoot.length).split(path.sep).reverse();
  let hops = 0;
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (name === "" || name === ".") continue;
    if (name === "..") {
      // `current` is already real, so its lexical parent is its physical parent.
      current = path.dirname(current);
      continue;
    }
    signal?.throwIfAborted();
    const next = path.join(current, name);
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(next);
    } catch (error) {
      if (!isMissing(error)) throw error;
      // Nothing below a missing component exists, so the rest holds no symlink and is joined as is —
      // unless a link's target walks back up through it, which the OS itself would refuse (ENOENT).
      if (pending.includes("..")) throw new Error(`ENOENT: no such directory ${next}`);
      return path.join(next, ...pending.reverse());
    }
    if (stats.isSymbolicLink()) {
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) throw new Error(`ELOOP: too many levels of symbolic links in ${target}`);
      const link = await readlink(next);
      // The link's target replaces it: walked from the filesystem root if absolute, else from its directory.
      const linkRoot = path.parse(link).root;
      if (linkRoot !== "") current = linkRoot;
      pending.push(...link.slice(linkRoot.length).split(path.sep).reverse());
      continue;
    }
    current = next;
  }
  return current;
}
