/**
 * The fold benchmark: rebuild a task's state from a 100,000-event log from scratch, and from a
 * snapshot 100 events back (the resume case), in memory and from the snapshot's stored JSON.
 *
 *   npm run bench:fold                 # 7 rounds
 *   npm run fold -w @sema-agent/bench -- --rounds 3
 *   npm run bench:fold -- --save       # and write bench/results/fold/<date>-<commit>.json
 */
import { parseArgs } from "node:util";
import { fold, type TaskEvent } from "@sema-agent/core";
import { stateFromJson, stateToJson, TASK_STATE_VERSION } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import {
  describeMachine,
  formatMachine,
  formatTable,
  memoryAfterGc,
  type ResultRow,
  realisticEvents,
  timed,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const LOG = 100_000;
const TAIL = 100;

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "7" }, save: { type: "boolean", default: false } },
});
const machine = describeMachine();
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);

const log: TaskEvent[] = [make.created("bench", "Fold a long task"), make.legStarted(), ...realisticEvents(LOG - 2)];
const head = log.slice(0, LOG - TAIL);
const tail = log.slice(LOG - TAIL);
const snapshot = fold(head);
const snapshotJson = JSON.stringify(stateToJson(snapshot));

const scratch: number[] = [];
const fromSnapshot: number[] = [];
const fromStoredSnapshot: number[] = [];
fold(log); // warm-up
for (let round = 0; round < rounds; round++) {
  scratch.push((await timed(() => fold(log))).ms);
  fromSnapshot.push((await timed(() => fold(tail, snapshot))).ms);
  fromStoredSnapshot.push(
    (
      await timed(() => {
        const state = stateFromJson(TASK_STATE_VERSION, JSON.parse(snapshotJson));
        if (state === undefined) throw new Error("snapshot version");
        return fold(tail, state);
      })
    ).ms,
  );
}
const state = fold(log);
const { heapMiB } = memoryAfterGc();

console.log(formatMachine(machine));
console.log(
  `log: ${LOG.toLocaleString("en-US")} events (model_turn / tool_call_started / tool_result), ${state.transcript.length.toLocaleString("en-US")} transcript entries, snapshot ${(snapshotJson.length / 2 ** 20).toFixed(1)} MiB of JSON\n`,
);
const rows: ResultRow[] = [
  { subject: "fold", metric: `${LOG.toLocaleString("en-US")} events from scratch`, unit: "ms", samples: scratch },
  {
    subject: "fold",
    metric: `from a snapshot ${TAIL} events back (state in memory)`,
    unit: "ms",
    samples: fromSnapshot,
    target: { value: 5, higher: false },
  },
  {
    subject: "fold",
    metric: `from a snapshot ${TAIL} events back, parsing its stored JSON`,
    unit: "ms",
    samples: fromStoredSnapshot,
  },
  { subject: "fold", metric: "heap with the log and two states", unit: "MiB", samples: [heapMiB] },
];
console.log(formatTable(rows));
saveIfAsked("fold", machine, rows);
