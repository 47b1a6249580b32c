/**
 * A second process for the cross-process tests: it opens the same file with its own SqliteStore
 * and writes, so the parent sees only what SQLite itself carries between processes.
 *
 *   node --conditions=source cross-process.fixture.ts append <path> <taskId> <count>
 *     appends <count> notes one at a time, a few milliseconds apart
 *   node --conditions=source cross-process.fixture.ts race <path> <taskId> <batches> <writer>
 *     appends <batches> batches of 3 notes, re-reading and retrying on SeqConflict
 */
import { isSemaError } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { SqliteStore } from "./sqlite-store.ts";

const [mode, path, taskId, countText, writer = "child"] = process.argv.slice(2);
if (path === undefined || taskId === undefined || countText === undefined) {
  throw new Error("usage: cross-process.fixture.ts append|race <path> <taskId> <count> [writer]");
}
const count = Number(countText);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// The parent's test block picks the writer (SEMA_TEST_WRITER), so both ends run the same kind.
const store = new SqliteStore({ path, writer: process.env.SEMA_TEST_WRITER === "thread" ? "thread" : "main" });
try {
  if (mode === "append") {
    for (let i = 0; i < count; i++) {
      const { lastSeq } = await store.getTask(taskId);
      await store.append(taskId, [make.note(`child-${i}`)], { expectedSeq: lastSeq });
      await sleep(3);
    }
  } else if (mode === "race") {
    for (let batch = 0; batch < count; batch++) {
      const notes = [0, 1, 2].map((i) => make.note(`${writer}.${batch}-${i}`));
      for (;;) {
        const { lastSeq } = await store.getTask(taskId);
        try {
          await store.append(taskId, notes, { expectedSeq: lastSeq });
          break;
        } catch (error) {
          if (!isSemaError(error, "SeqConflict")) throw error;
        }
      }
    }
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} finally {
  await store.close();
}
