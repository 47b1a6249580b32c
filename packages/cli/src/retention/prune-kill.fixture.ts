/**
 * A process that prunes a SQLite file (every finished task, archived first) and dies by SIGKILL at
 * its `killAt`-th step, for prune-kill.test.ts. The steps are every archive file moved into place,
 * every DELETE statement and every COMMIT, each killed before it runs. It prunes two tasks a batch,
 * so group commit deletes several in one transaction. With `killAt` 0 nothing is killed and it
 * prints how many steps the prune took and the most tasks one COMMIT deleted.
 *
 *   node --conditions=source prune-kill.fixture.ts <path> <archiveDir> <killAt | 0>
 */
import fs, { writeSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { StatementSync } from "node:sqlite";
import { SqliteStore } from "@sema-agent/sqlite";
import { folderSink } from "./archive-sink.ts";
import { pruneStore } from "./prune.ts";

const [path, archiveDir, killAtText] = process.argv.slice(2);
if (path === undefined || archiveDir === undefined || killAtText === undefined) {
  throw new Error("usage: prune-kill.fixture.ts <path> <archiveDir> <killAt | 0>");
}
const killAt = Number(killAtText);
let steps = 0;
const step = () => {
  if (++steps === killAt) process.kill(process.pid, "SIGKILL");
};
/** Tasks deleted in the open transaction, and the most one COMMIT held. */
let deletedInTransaction = 0;
let mostPerCommit = 0;
const proto = StatementSync.prototype as unknown as { run: (...args: unknown[]) => unknown; sourceSQL: string };
const run = proto.run;
proto.run = function counted(this: typeof proto, ...args: unknown[]) {
  if (this.sourceSQL.startsWith("DELETE") || this.sourceSQL === "COMMIT") step();
  const result = Reflect.apply(run, this, args);
  if (this.sourceSQL.startsWith("DELETE FROM tasks")) deletedInTransaction++;
  if (this.sourceSQL === "COMMIT") {
    mostPerCommit = Math.max(mostPerCommit, deletedInTransaction);
    deletedInTransaction = 0;
  }
  return result;
};
const rename = fs.renameSync;
fs.renameSync = (from, to) => {
  step();
  rename(from, to);
};
syncBuiltinESMExports();

/**
 * The prune's time: any moment after the tasks were seeded (with `olderThan` 0 every finished
 * task is due), fixed rather than read from the clock.
 */
const AFTER_THE_SEEDING = Date.parse("2100-01-01T00:00:00.000Z");

const store = new SqliteStore({ path });
const report = await pruneStore(store, {
  policy: { default: { olderThan: "0ms", action: "archive" } },
  nowMs: AFTER_THE_SEEDING,
  archive: folderSink(archiveDir),
  batchSize: 2,
});
await store.close();
writeSync(1, `pruned ${report.removed.length} in ${steps} steps, at most ${mostPerCommit} tasks a commit\n`);
