/** The background retention of a host (`sema serve`, `sema worker`): the config's policy, if it has one. */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { Store } from "@sema-agent/core";
import type { CliIo } from "../context.ts";
import { terminalSafe } from "../terminal-safe.ts";
import { folderSink } from "./archive-sink.ts";
import { type BackgroundRetention, startRetention } from "./background.ts";
import { loadRetention } from "./config.ts";

/**
 * Start the config's retention over `store`, saying so; undefined when the config has none.
 * `onDeleted` removes what lives beside the store for the deleted tasks (`sema serve`: their A2A
 * push configs; a worker loads nothing of the server).
 */
export async function hostRetention(
  io: CliIo,
  store: Store,
  who: string,
  onDeleted?: (taskIds: readonly string[]) => Promise<void>,
): Promise<BackgroundRetention | undefined> {
  const policy = await loadRetention(io.cwd);
  if (policy === undefined) return undefined;
  const archiveDir = resolve(io.cwd, policy.archiveDir ?? ".sema/archive");
  const retention = startRetention({
    store,
    policy,
    archive: folderSink(archiveDir),
    ...(onDeleted === undefined ? {} : { onDeleted }),
    holder: `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`,
    onPass: (report) => {
      if (report.removed.length === 0) return;
      io.stdout.write(`${terminalSafe(`${who}: retention removed ${report.removed.length} finished task(s)`)}\n`);
    },
    onError: (error) =>
      io.stderr.write(
        `${terminalSafe(`${who}: retention: ${error instanceof Error ? error.message : String(error)}`)}\n`,
      ),
  });
  io.stdout.write(`Retention: a pass every ${policy.every ?? "1h"}, one node at a time (archive in ${archiveDir})\n`);
  return retention;
}
