/**
 * A process that migrates one SQLite file into another (`migrateStores`, one task at a time, so
 * its steps are the same in every run; push configs included) and dies by SIGKILL at its
 * `killAt`-th step, for migrate-kill.test.ts.
 * The steps are every INSERT and every COMMIT once both stores are open (blobs, task rows,
 * events, inputs, push configs), each killed before it runs. With `killAt` 0 nothing is killed
 * and it prints how many steps the migration took and what it did.
 *
 *   node --conditions=source migrate-kill.fixture.ts <from> <to> <killAt | 0>
 */
import { writeSync } from "node:fs";
import { StatementSync } from "node:sqlite";
import { SqlitePushConfigStore } from "@sema-agent/server/sqlite-a2a-push";
import { SqliteStore } from "@sema-agent/sqlite";
import { migrateStores } from "./migrate-stores.ts";

const [fromPath, toPath, killAtText] = process.argv.slice(2);
if (fromPath === undefined || toPath === undefined || killAtText === undefined) {
  throw new Error("usage: migrate-kill.fixture.ts <from> <to> <killAt | 0>");
}
const killAt = Number(killAtText);
let armed = false;
let steps = 0;
const proto = StatementSync.prototype as unknown as { run: (...args: unknown[]) => unknown; sourceSQL: string };
const run = proto.run;
proto.run = function counted(this: typeof proto, ...args: unknown[]) {
  if (armed && (this.sourceSQL.trimStart().startsWith("INSERT") || this.sourceSQL === "COMMIT")) {
    if (++steps === killAt) process.kill(process.pid, "SIGKILL");
  }
  return Reflect.apply(run, this, args);
};

const from = new SqliteStore({ path: fromPath });
const to = new SqliteStore({ path: toPath });
const fromPushes = new SqlitePushConfigStore({ path: fromPath });
const toPushes = new SqlitePushConfigStore({ path: toPath });
// Opening the push config stores creates their tables: read once, so that is done before arming.
await fromPushes.list("warm-up");
await toPushes.list("warm-up");
armed = true;
const report = await migrateStores(from, to, {
  concurrency: 1,
  from: { pushConfigs: fromPushes },
  to: { pushConfigs: toPushes },
});
armed = false;
await Promise.all([from.close(), to.close(), fromPushes.close(), toPushes.close()]);
writeSync(
  1,
  `copied ${report.copied.length} present ${report.present.length} refused ${report.refused.length} ` +
    `mismatched ${report.mismatched.length} in ${steps} steps\n`,
);
