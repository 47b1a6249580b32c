// A script whose last step is `await store.close()` after enough writes to start the checkpoint
// thread: it must end with exit code 0, not 13 (an unsettled top-level await), the thread having run.
//   node --conditions=source close-exit.fixture.ts <db path>
import { make } from "@sema-agent/core/testing";
import { SqliteStore } from "./sqlite-store.ts";

const store = new SqliteStore({ path: process.argv[2] ?? "" });
await store.createTask({ taskId: "t", created: make.created("p") });
for (let seq = 1; seq <= 4200; seq++) await store.append("t", [make.note("x")], { expectedSeq: seq });
// The thread looks every 50 ms: its first checkpoint says it started (a deadline, not a sleep).
const deadline = Date.now() + 20_000;
while (store.writeStats.checkpoints === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
const ran = store.writeStats.checkpoints > 0 ? "the thread ran" : "no thread";
await store.close();
process.stdout.write(`closed after ${store.writeStats.writes} writes, ${ran}\n`);
