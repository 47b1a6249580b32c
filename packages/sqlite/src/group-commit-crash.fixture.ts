/**
 * A process that dies by SIGKILL in the middle of group commits, for group-commit-crash.test.ts.
 * It opens an existing database (its tasks `t0` … created by the parent) and appends batches of
 * three notes to every task at once, over and over; after each append resolves it writes
 * `ack <task> <k>` to stdout, synchronously. It is killed either by the parent at any moment, or
 * by itself: its store's clock is read once per append inside the batch's transaction (after the
 * earlier appends of the batch ran their statements, before the COMMIT), and the `killAt`-th such
 * read sends SIGKILL to this process.
 *
 * With `thread`, the store's writer runs on its own thread, where the store's clock is not read:
 * the parent preloads writer-kill.fixture.ts, which kills at the `killAt`-th append's insert there.
 *
 *   node --conditions=source group-commit-crash.fixture.ts <path> <tasks> <killAt | 0> [thread]
 */
import { make } from "@sema-agent/core/testing";
import { SqliteStore } from "./sqlite-store.ts";
import { writeLine } from "./write-line.fixture.ts";

const [path, tasksText, killAtText, writer] = process.argv.slice(2);
if (path === undefined || tasksText === undefined || killAtText === undefined) {
  throw new Error("usage: group-commit-crash.fixture.ts <path> <tasks> <killAt | 0>");
}
const killAt = writer === "thread" ? 0 : Number(killAtText);
let reads = 0;
let armed = false;
const store = new SqliteStore({
  path,
  writer: writer === "thread" ? "thread" : "main",
  now: () => {
    // Only an append's own read counts: the batch also reads the clock to time itself, and
    // those reads come straight from the writer's #runBatch (the caller's frame, line 2).
    const caller = new Error().stack?.split("\n")[2] ?? "";
    if (armed && !caller.includes("runBatch") && ++reads === killAt) process.kill(process.pid, "SIGKILL");
    return Date.now();
  },
});
armed = true;
const ids = Array.from({ length: Number(tasksText) }, (_, i) => `t${i}`);
await Promise.all(
  ids.map(async (taskId) => {
    let seq = 1;
    for (let k = 0; ; k++) {
      const notes = [0, 1, 2].map((part) => make.note(`${taskId}:${k}:${part}`));
      const stored = await store.append(taskId, notes, { expectedSeq: seq });
      seq = stored.at(-1)?.seq ?? seq;
      writeLine(`ack ${taskId} ${k}`);
    }
  }),
);
