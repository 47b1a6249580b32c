/**
 * The status-read benchmark: CPU per `GET /v1/tasks/{id}` of a tiny task and of one whose log is
 * ~50 MB (realistic model_turn / tool_call_started / tool_result events, a snapshot at its end as
 * a leg leaves it), on a SqliteStore file; and, beside it, what the old request path (the latest
 * snapshot parsed, the rest folded) costs on the same task. CPU is `process.cpuUsage` (user +
 * system) over a batch of in-process requests (`app.request`: no socket, so only the server's
 * work is counted), divided by the batch.
 *
 *   npm run bench:task-get                         # 50 MB, 200 GETs per round, 5 rounds
 *   npm run task-get -w @sema-agent/bench -- --mb 10 --gets 100 --rounds 3
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fold, loadTaskState, overviewOf, type Store, startTask } from "@sema-agent/core";
import { stateToJson } from "@sema-agent/core/store-kit";
import { SqliteStore } from "@sema-agent/sqlite";
import {
  benchApp,
  describeMachine,
  formatMachine,
  formatTable,
  meanJsonBytes,
  type ResultRow,
  realisticEvents,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "50" },
    gets: { type: "string", default: "200" },
    rounds: { type: "string", default: "5" },
    save: { type: "boolean", default: false },
  },
});
const machine = describeMachine();
const MB = Number(values.mb);
const GETS = Number(values.gets);
const ROUNDS = Number(values.rounds);

const dir = mkdtempSync(join(tmpdir(), "sema-bench-get-"));
const store = new SqliteStore({ path: join(dir, "bench.db") });
const { app, token } = await benchApp(store);
const headers = { authorization: `Bearer ${token}` };

/** A task whose log holds about `mb` MB of events, with a snapshot at its last seq. */
async function taskOf(mb: number): Promise<string> {
  const taskId = await startTask(store, { objective: "Read status", principal: "bench" });
  const sample = realisticEvents(300);
  const count = Math.ceil((mb * 2 ** 20) / meanJsonBytes(sample));
  for (let done = 0; done < count; done += 1_000) {
    const { lastSeq } = await store.getTask(taskId);
    await store.append(taskId, realisticEvents(Math.min(1_000, count - done)), { expectedSeq: lastSeq });
  }
  await store.append(taskId, [{ type: "task_completed", v: 1, result: "done" }], {
    expectedSeq: (await store.getTask(taskId)).lastSeq,
  });
  const events = await store.read(taskId);
  const state = fold(events);
  await store.putSnapshot({ taskId, seq: state.lastSeq, v: state.v, state: stateToJson(state) });
  return taskId;
}

/** CPU ms per call of `work`, over `GETS` calls. */
async function cpuPer(work: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < GETS; i++) await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000 / GETS;
}

async function get(taskId: string): Promise<void> {
  const response = await app.request(`/v1/tasks/${taskId}`, { headers });
  if (response.status !== 200) throw new Error(`GET ${taskId}: ${response.status}`);
  await response.arrayBuffer();
}

/** The old request path: the folded state of the latest snapshot plus what follows. */
async function oldPath(s: Store, taskId: string): Promise<void> {
  const record = await s.getTask(taskId);
  overviewOf(record, await loadTaskState(s, taskId));
}

const tiny = await taskOf(0);
const big = await taskOf(MB);
const { lastSeq } = await store.getTask(big);
const rows: ResultRow[] = [
  { subject: "GET tiny task", metric: "CPU per GET", unit: "ms", samples: [] },
  { subject: `GET ${MB} MB-log task`, metric: "CPU per GET", unit: "ms", samples: [] },
  { subject: `old path, ${MB} MB-log task`, metric: "CPU per read (snapshot + fold)", unit: "ms", samples: [] },
];
await get(tiny);
await get(big); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  rows[0]?.samples.push(await cpuPer(() => get(tiny)));
  rows[1]?.samples.push(await cpuPer(() => get(big)));
  rows[2]?.samples.push(await cpuPer(() => oldPath(store, big)));
}
await store.close();
rmSync(dir, { recursive: true, force: true });

console.log(formatMachine(machine));
console.log(`big task: ${lastSeq.toLocaleString("en-US")} events (~${MB} MB of JSON), ${GETS} reads per round\n`);
console.log(formatTable(rows));
saveIfAsked("task-get", machine, rows);
