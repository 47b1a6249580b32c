/**
 * A process that migrates a SQLite file into a PostgreSQL schema (`migrateStores`, one task at a
 * time, push configs included) and dies by SIGKILL at its `killAt`-th step, for
 * migrate-kill-pg.test.ts. The steps are every statement that can change the target (see
 * pg-kill-steps.ts: writes and COMMITs) once both stores are open, each killed before it runs.
 * With `killAt` 0 nothing is killed and it prints how many steps the migration took and what it did.
 *
 *   node --conditions=source migrate-kill-pg.fixture.ts <from> <url> <schema> <killAt | 0>
 */
import { writeSync } from "node:fs";
import { PostgresStore } from "@sema-agent/postgres";
import { PostgresPushConfigStore } from "@sema-agent/server/postgres-a2a-push";
import { SqlitePushConfigStore } from "@sema-agent/server/sqlite-a2a-push";
import { SqliteStore } from "@sema-agent/sqlite";
import { killAtPgStep } from "../test-support/pg-kill-steps.ts";
import { migrateStores } from "./migrate-stores.ts";

const [fromPath, url, schema, killAtText] = process.argv.slice(2);
if (fromPath === undefined || url === undefined || schema === undefined || killAtText === undefined) {
  throw new Error("usage: migrate-kill-pg.fixture.ts <from> <url> <schema> <killAt | 0>");
}
const steps = killAtPgStep(Number(killAtText));
const from = new SqliteStore({ path: fromPath });
const to = await PostgresStore.open({ connectionString: url, schema });
const fromPushes = new SqlitePushConfigStore({ path: fromPath });
const toPushes = new PostgresPushConfigStore({ pool: to.pool, schema });
// Opening the push config stores creates their tables: read once, so that is done before arming.
await fromPushes.list("warm-up");
await toPushes.list("warm-up");
steps.arm();
const report = await migrateStores(from, to, {
  concurrency: 1,
  from: { pushConfigs: fromPushes },
  to: { pushConfigs: toPushes },
});
steps.disarm();
await Promise.all([from.close(), fromPushes.close(), toPushes.close()]);
await to.close();
writeSync(
  1,
  `copied ${report.copied.length} present ${report.present.length} refused ${report.refused.length} ` +
    `mismatched ${report.mismatched.length} in ${steps.count} steps\n`,
);
