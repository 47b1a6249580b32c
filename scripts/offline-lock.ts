/**
 * A package-lock.json for an app outside the repository, so `npm install --offline` installs it
 * with no registry: every third-party package at the version (and integrity) this repository's
 * lockfile gives it, its tarball already in npm's cache since `npm ci`, and each workspace package
 * from its packed tarball (`file:`). Without a lockfile npm would need each package's metadata
 * from the registry to choose versions, which `npm ci` never fetches and so is not in the cache.
 *
 * The tree is the repository's own layout, cut down to what the app's dependencies reach: a
 * package nested at `node_modules/a/node_modules/b` there is nested the same way here, and one
 * under a workspace (`packages/cli/node_modules/x`) goes under that package's folder.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A package's entry in a lockfile (version 3), as far as this reads it. */
interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [key: string]: unknown;
}

/** The app's manifest, as far as the lockfile repeats it. */
export interface AppManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  engines?: Record<string, string>;
}

/** The lockfile (as JSON text) for `app`, the workspace packages from `tarballs` by package name. */
export function offlineLock(repo: string, app: AppManifest, tarballs: ReadonlyMap<string, string>): string {
  const packages = (
    JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as {
      packages: Record<string, LockEntry>;
    }
  ).packages;
  const { name, version, dependencies, devDependencies, engines } = app;
  const out: Record<string, unknown> = { "": { name, version, dependencies, devDependencies, engines } };
  const seen = new Set<string>();

  /** Where `dep` resolves from the package at `from`, by Node's lookup: nearest node_modules up. */
  const locate = (from: string, dep: string): string | undefined => {
    let at = from;
    for (;;) {
      const candidate = at === "" ? `node_modules/${dep}` : `${at}/node_modules/${dep}`;
      if (packages[candidate] !== undefined) return candidate;
      if (at === "") return undefined;
      const up = at.lastIndexOf("/node_modules/");
      at = up < 0 ? "" : at.slice(0, up);
    }
  };
  /** A repository path as the app's: a workspace folder becomes the package's folder in node_modules. */
  const appPath = (path: string): string =>
    path.replace(/^packages\/[^/]+/, (folder) => `node_modules/${packages[folder]?.name ?? folder}`);

  const visit = (from: string, deps: Record<string, string>, meta: LockEntry["peerDependenciesMeta"]): void => {
    for (const dep of Object.keys(deps)) {
      if (meta?.[dep]?.optional === true) continue;
      let path = locate(from, dep);
      if (path === undefined) throw new Error(`${dep} (needed by ${from || "the app"}) is not in package-lock.json`);
      let entry = packages[path];
      if (entry?.link === true && entry.resolved !== undefined) {
        path = entry.resolved;
        entry = packages[path];
      }
      if (entry === undefined || seen.has(path)) continue;
      seen.add(path);
      const { dev: _dev, devOptional: _devOptional, peer: _peer, devDependencies: _devDeps, ...kept } = entry;
      const tarball = entry.name === undefined ? undefined : tarballs.get(entry.name);
      if (path.startsWith("packages/") && !path.includes("/node_modules/")) {
        if (tarball === undefined) throw new Error(`no tarball for the workspace package ${entry.name ?? path}`);
        const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
        out[appPath(path)] = { ...kept, resolved: `file:${tarball}`, integrity };
      } else {
        out[appPath(path)] = kept;
      }
      visit(
        path,
        { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies },
        entry.peerDependenciesMeta,
      );
    }
  };
  visit("", { ...dependencies, ...devDependencies }, undefined);
  return `${JSON.stringify({ name, version, lockfileVersion: 3, requires: true, packages: out }, null, 2)}\n`;
}
