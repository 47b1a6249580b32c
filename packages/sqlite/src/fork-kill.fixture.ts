/**
 * A process that forks a task and dies by SIGKILL in the middle of the fork's write, for
 * forks.test.ts. It opens an existing database, then forks `<source>` whole (`forkTask`, one
 * `createTask`): the `killAt`-th event INSERT it runs after opening (32 events each) sends SIGKILL
 * to this process before it runs, inside the fork's transaction, before its COMMIT. It prints
 * `forking` as it starts the fork; with `killAt` 0 nothing is killed and it prints the fork's id.
 *
 *   node --conditions=source fork-kill.fixture.ts <path> <source> <killAt | 0>
 */
import { StatementSync } from "node:sqlite";
import { forkTask } from "@sema-agent/core/time-travel";
import { SqliteStore } from "./sqlite-store.ts";
import { writeLine } from "./write-line.fixture.ts";

const [path, source, killAtText] = process.argv.slice(2);
if (path === undefined || source === undefined || killAtText === undefined) {
  throw new Error("usage: fork-kill.fixture.ts <path> <source> <killAt | 0>");
}
const store = new SqliteStore({ path });
const killAt = Number(killAtText);
if (killAt > 0) {
  const proto = StatementSync.prototype as unknown as { run: (...args: unknown[]) => unknown; sourceSQL: string };
  const run = proto.run;
  let inserts = 0;
  proto.run = function counted(this: typeof proto, ...args: unknown[]) {
    if (this.sourceSQL.startsWith("INSERT INTO events") && ++inserts === killAt) process.kill(process.pid, "SIGKILL");
    return Reflect.apply(run, this, args);
  };
}
writeLine("forking");
const fork = await forkTask(store, source);
await store.close();
writeLine(`forked ${fork.taskId}`);
