// A script whose last step is `await store.close()` after enough writes to start the checkpoint
// thread: it must end with exit code 0, not 13 (an unsettled top-level await).
//   node --conditions=source close-exit.fixture.ts <db path>
import { make } from "@sema-agent/core/testing";
import { SqliteStore } from "./sqlite-store.ts";

const store = new SqliteStore({ path: process.argv[2] ?? "" });
await store.createTask({ taskId: "t", created: make.created("p") });
for (let seq = 1; seq <= 4200; seq++) await store.append("t", [make.note("x")], { expectedSeq: seq });
await store.close();
process.stdout.write(`closed after ${store.writeStats.writes} writes\n`);
