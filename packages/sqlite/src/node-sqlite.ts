/**
 * `node:sqlite`, loaded without its ExperimentalWarning. Node 22 prints "SQLite is an
 * experimental feature" to stderr the first time the module loads, so every app embedding Sema
 * would print it on every start; Node 24 no longer does. A static `import ... from "node:sqlite"`
 * cannot be guarded: ESM links built-in modules (and so emits the warning) before any code of
 * ours runs. Loading it through `process.getBuiltinModule` is synchronous, so `process.emitWarning`
 * is wrapped for exactly that call and restored right after; only the one SQLite warning is
 * dropped, anything else emitted meanwhile passes through.
 */
import type * as NodeSqlite from "node:sqlite";

/** True for Node's own "SQLite is an experimental feature" ExperimentalWarning, in either call form. */
function isSqliteExperimentalWarning(warning: string | Error, rest: readonly unknown[]): boolean {
  const [second] = rest;
  const type =
    warning instanceof Error
      ? warning.name
      : typeof second === "string"
        ? second
        : typeof second === "object" && second !== null && "type" in second
          ? (second as { type?: unknown }).type
          : undefined;
  const message = warning instanceof Error ? warning.message : warning;
  return type === "ExperimentalWarning" && message.startsWith("SQLite is an experimental feature");
}

/**
 * `node:sqlite` through `getBuiltinModule`, or an error that says what is needed: on a Node.js
 * without it (before 22.5, or without `process.getBuiltinModule`) the module is simply absent, and
 * reading `DatabaseSync` off `undefined` would be all a person saw.
 */
export function loadNodeSqlite(
  getBuiltin: ((id: "node:sqlite") => typeof NodeSqlite | undefined) | undefined,
  nodeVersion: string,
): typeof NodeSqlite {
  const loaded = getBuiltin?.("node:sqlite");
  if (loaded?.DatabaseSync === undefined)
    throw new Error(
      `@sema-agent/sqlite needs Node.js >= 22.13 (it uses node:sqlite); this is Node.js ${nodeVersion}. Upgrade Node.js, or use @sema-agent/postgres or MemoryStore.`,
    );
  return loaded;
}

function load(): typeof NodeSqlite {
  const original = process.emitWarning;
  const filtered = (warning: string | Error, ...rest: unknown[]): void => {
    if (isSqliteExperimentalWarning(warning, rest)) return;
    Reflect.apply(original, process, [warning, ...rest]);
  };
  process.emitWarning = filtered as typeof process.emitWarning;
  try {
    const get = typeof process.getBuiltinModule === "function" ? process.getBuiltinModule.bind(process) : undefined;
    return loadNodeSqlite(get as Parameters<typeof loadNodeSqlite>[0], process.versions.node);
  } finally {
    // Put back only our own wrapper: if something replaced emitWarning meanwhile, keep theirs.
    if (process.emitWarning === filtered) process.emitWarning = original;
  }
}

/** `node:sqlite`'s synchronous connection class (a plain binding, not destructured, so TypeDoc sees its comment). */
export const DatabaseSync: typeof NodeSqlite.DatabaseSync = load().DatabaseSync;
/** A `node:sqlite` connection. */
export type DatabaseSync = NodeSqlite.DatabaseSync;
