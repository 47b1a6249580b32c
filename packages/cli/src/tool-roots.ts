/**
 * Where each host's file tools work. `sema run` / `sema resume`: the working directory, with the
 * store and the config files refused to the writing tools. `sema serve` / `sema worker`: a
 * workspace per principal (or per task) under `--workspaces`, a directory that may contain
 * neither the store nor the config, so no tenant's tools can reach the host's files or another
 * tenant's.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { type CliIo, type StoreLocation, UsageError } from "./context.ts";
import { isInside } from "./tools/confine-path.ts";
import { type FileToolsOptions, type FileToolsRoot, type WorkspacePer, workspaceResolver } from "./tools/index.ts";

/** The config files the hosts load from their working directory (see agent-config.ts). */
export const CONFIG_FILES = ["sema.config.ts", "sema.config.mjs", "sema.config.js", "sema.config.json"] as const;

/** The default workspace base, under the working directory; it does not contain `.sema/sema.db`. */
export const DEFAULT_WORKSPACES = ".sema/workspaces";

/** The flags of `sema serve` and `sema worker` that place the workspaces. */
export const WORKSPACE_OPTIONS = {
  workspaces: { type: "string" },
  "workspace-per": { type: "string" },
} as const;

/** A file-tool root and its options, for `createFileTools`. */
export interface ToolSetup {
  root: FileToolsRoot;
  options: FileToolsOptions;
  /** For the start-up line. */
  label: string;
}

/** The store's files (SQLite keeps a journal, a WAL and its shared memory beside the database). */
function storeFiles(store: StoreLocation): string[] {
  if (store.kind !== "sqlite") return [];
  return ["", "-wal", "-shm", "-journal"].map((suffix) => store.path + suffix);
}

/** The host's own files: never written by a tool, wherever the tools' root is. */
export function hostFiles(io: CliIo, store: StoreLocation): string[] {
  return [...storeFiles(store), ...CONFIG_FILES.map((name) => path.resolve(io.cwd, name))];
}

/** `sema run` and `sema resume`: the working directory, minus the store and config files. */
export function localToolSetup(io: CliIo, store: StoreLocation): ToolSetup {
  return { root: io.cwd, options: { protectedPaths: hostFiles(io, store) }, label: io.cwd };
}

/** The real path of `file`, or of its nearest existing ancestor followed by the rest. */
function realish(file: string): string {
  const absolute = path.resolve(file);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(realish(parent), path.basename(absolute));
  }
}

/**
 * `sema serve` / `sema worker`: workspaces under `--workspaces` (default `.sema/workspaces`), one
 * per principal or, with `--workspace-per task`, per task. Refuses (a usage error) a base that
 * contains the store or a config file: a tool there could rewrite the host.
 */
export function servedToolSetup(
  io: CliIo,
  store: StoreLocation,
  flags: { workspaces?: string | undefined; "workspace-per"?: string | undefined },
): ToolSetup {
  const per = flags["workspace-per"] ?? "principal";
  if (per !== "principal" && per !== "task")
    throw new UsageError(`--workspace-per must be principal or task, got ${per}`);
  const base = path.resolve(io.cwd, flags.workspaces ?? DEFAULT_WORKSPACES);
  const real = realish(base);
  for (const file of hostFiles(io, store)) {
    if (isInside(realish(file), real))
      throw new UsageError(
        `--workspaces ${base} contains ${file}: the agents' tools would reach the host's own store or config; choose a directory beside them`,
      );
  }
  // Made on first use (mode 0700, by the tools), so a host whose agents bring their own tools leaves no trace.
  return {
    root: workspaceResolver(base, per satisfies WorkspacePer),
    options: { protectedPaths: hostFiles(io, store) },
    label: `workspaces in ${base}, one per ${per}`,
  };
}
