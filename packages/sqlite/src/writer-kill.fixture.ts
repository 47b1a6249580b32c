/**
 * Preloaded (`--import`) into group-commit-crash.fixture.ts with `writer: "thread"`: on the writer
 * thread (preloads run in workers too), the `SEMA_KILL_AT`-th event insert — one per append of
 * the fixture's three notes — sends SIGKILL to the whole process before it runs, after the
 * batch's earlier appends ran their statements and before its COMMIT.
 */
import { isMainThread } from "node:worker_threads";

const killAt = Number(process.env.SEMA_KILL_AT ?? 0);
if (!isMainThread && killAt > 0) {
  const { StatementSync } = process.getBuiltinModule("node:sqlite");
  const proto = StatementSync.prototype as unknown as { run: (...args: unknown[]) => unknown; sourceSQL: string };
  const run = proto.run;
  let inserts = 0;
  proto.run = function counted(this: typeof proto, ...args: unknown[]) {
    if (this.sourceSQL.startsWith("INSERT INTO events") && ++inserts === killAt) process.kill(process.pid, "SIGKILL");
    return Reflect.apply(run, this, args);
  };
}
