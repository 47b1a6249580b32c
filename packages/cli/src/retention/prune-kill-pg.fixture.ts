/**
 * A process that prunes a PostgreSQL schema (every finished task, archived first, two a batch so
 * two deletions run at once) and dies by SIGKILL at its `killAt`-th step, for
 * prune-kill-pg.test.ts. The steps are every archive file moved into place and every statement
 * that can change the database (see pg-kill-steps.ts), each killed before it runs. With `killAt` 0
 * nothing is killed and it prints how many steps the prune took.
 *
 *   node --conditions=source prune-kill-pg.fixture.ts <url> <schema> <archiveDir> <killAt | 0>
 */
import fs, { writeSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { PostgresStore } from "@sema-agent/postgres";
import { killAtPgStep } from "../test-support/pg-kill-steps.ts";
import { folderSink } from "./archive-sink.ts";
import { pruneStore } from "./prune.ts";

const [url, schema, archiveDir, killAtText] = process.argv.slice(2);
if (url === undefined || schema === undefined || archiveDir === undefined || killAtText === undefined) {
  throw new Error("usage: prune-kill-pg.fixture.ts <url> <schema> <archiveDir> <killAt | 0>");
}
const steps = killAtPgStep(Number(killAtText));
const rename = fs.renameSync;
fs.renameSync = (from, to) => {
  steps.step();
  rename(from, to);
};
syncBuiltinESMExports();

/**
 * The prune's time: any moment after the tasks were seeded (with `olderThan` 0 every finished
 * task is due), fixed rather than read from the clock.
 */
const AFTER_THE_SEEDING = Date.parse("2100-01-01T00:00:00.000Z");

const store = await PostgresStore.open({ connectionString: url, schema });
steps.arm();
const report = await pruneStore(store, {
  policy: { default: { olderThan: "0ms", action: "archive" } },
  nowMs: AFTER_THE_SEEDING,
  archive: folderSink(archiveDir),
  batchSize: 2,
});
steps.disarm();
await store.close();
writeSync(1, `pruned ${report.removed.length} in ${steps.count} steps\n`);
