/** The background retention of a host (`sema serve`, `sema worker`): the config's policy, if it has one. */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { Store } from "@sema-agent/core";
import type { PushConfigStore } from "@sema-agent/server/a2a";
import type { CliIo } from "../context.ts";
import { terminalSafe } from "../terminal-safe.ts";
import { folderSink } from "./archive-sink.ts";
import { type BackgroundRetention, startRetention } from "./background.ts";
import { loadRetention } from "./config.ts";

/** The A2A push configs of tasks deleted: they would never be delivered again. */
export async function deletePushConfigs(
  pushes: Pick<PushConfigStore, "list" | "delete">,
  taskIds: readonly string[],
): Promise<void> {
  for (const taskId of taskIds) for (const config of await pushes.list(taskId)) await pushes.delete(taskId, config.id);
}

/**
 * Start the config's retention over `store`, saying so; undefined when the config has none. The
 * deleted tasks' A2A push configs go with them, on `sema serve` and `sema worker` alike:
 * `pushConfigs` is asked for them only once a pass has deleted a task (a worker that never
 * prunes never loads the push config store).
 */
export async function hostRetention(
  io: CliIo,
  store: Store,
  who: string,
  pushConfigs: () => Promise<Pick<PushConfigStore, "list" | "delete">>,
): Promise<BackgroundRetention | undefined> {
  const policy = await loadRetention(io.cwd);
  if (policy === undefined) return undefined;
  const archiveDir = resolve(io.cwd, policy.archiveDir ?? ".sema/archive");
  const retention = startRetention({
    store,
    policy,
    archive: folderSink(archiveDir),
    onDeleted: async (taskIds) => deletePushConfigs(await pushConfigs(), taskIds),
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
