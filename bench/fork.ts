import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Store, TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { forkTask } from "@sema-agent/core/time-travel";
import {
  describeMachine,
  formatMachine,
  formatTable,
  meanJsonBytes,
  type ResultRow,
  realisticEvents,
  reportToParent,
  runInChild,
  timed,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";
import { type StoreSubject, storeSubjects } from "./lib/store-subjects.ts";

/** The source's length: its creation, a leg, tool-using turns, and two notes that end it on a step boundary. */
const LOG = 10_000;
/** The source is written as a leg writes it: appends of this many events. */
const APPEND = 100;

/** The events after the source's creation: a fork of it copies all of them. */
function sourceEvents(): TaskEvent[] {
  return [make.legStarted("leg-1"), ...realisticEvents(LOG - 4), make.note("end 1"), make.note("end 2")];
}

const SUBJECTS: Record<string, StoreSubject> = storeSubjects("fork");

interface Round {
  forkMs: number;
  createMs: number;
}

/** `store` with its `createTask` timed into `times`. */
function timingCreates(store: Store, times: number[]): Store {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      if (key !== "createTask") return value.bind(target);
      return async (...args: Parameters<Store["createTask"]>) => {
        const { ms, value: stored } = await timed(() => target.createTask(...args));
        times.push(ms);
        return stored;
      };
    },
  });
}

/** One round on a fresh store: write the source, then fork it whole. */
async function runRound(subject: StoreSubject, events: readonly TaskEvent[]): Promise<Round> {
  const { store, close } = await subject.open();
  try {
    const [created] = await store.createTask({ created: make.created("bench", "A long task to fork") });
    if (created === undefined) throw new Error("createTask returned no event");
    for (let start = 0; start < events.length; start += APPEND)
      await store.append(created.taskId, events.slice(start, start + APPEND), { expectedSeq: start + 1 });
    const creates: number[] = [];
    const { ms, value: fork } = await timed(() => forkTask(timingCreates(store, creates), created.taskId));
    if (fork.seq !== LOG) throw new Error(`the fork copied ${fork.seq} events, not ${LOG}`);
    const { lastSeq } = await store.getTask(fork.taskId);
    if (lastSeq !== LOG + 1) throw new Error(`the fork has ${lastSeq} events, not ${LOG + 1}`);
    return { forkMs: ms, createMs: creates.reduce((sum, each) => sum + each, 0) };
  } finally {
    await close();
  }
}

/** Every round of one subject in this process, and its rows. */
async function runSubject(key: string, rounds: number): Promise<ResultRow[]> {
  const subject = SUBJECTS[key];
  if (subject === undefined) throw new Error(`unknown store ${key}; known: ${Object.keys(SUBJECTS).join(", ")}`);
  const events = sourceEvents();
  await runRound(subject, events);
  const results: Round[] = [];
  for (let round = 1; round <= rounds; round++) {
    const last = await runRound(subject, events);
    results.push(last);
    process.stderr.write(
      `${subject.name} round ${round}/${rounds}: fork ${last.forkMs.toFixed(1)} ms, createTask ${last.createMs.toFixed(1)} ms\n`,
    );
  }
  const length = LOG.toLocaleString("en-US");
  return [
    {
      subject: subject.name,
      metric: `fork a ${length}-event task whole (forkTask)`,
      unit: "ms",
      samples: results.map((r) => r.forkMs),
    },
    {
      subject: subject.name,
      metric: `of which its write (one createTask of ${(LOG + 1).toLocaleString("en-US")} events)`,
      unit: "ms",
      samples: results.map((r) => r.createMs),
    },
  ];
}

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
    store: { type: "string" },
    save: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);

if (values.store !== undefined) {
  // A child of the run below, or one store run on its own (which saves, if asked, what it reports).
  const machine = describeMachine();
  const rows = await runSubject(values.store, rounds);
  reportToParent(rows);
  saveIfAsked("fork", machine, rows);
} else {
  const machine = describeMachine();
  console.log(formatMachine(machine));
  const events = sourceEvents();
  console.log(
    `source: ${LOG.toLocaleString("en-US")} events (tool-using turns), ${Math.round(meanJsonBytes(events))} bytes of JSON per event on average, written in appends of ${APPEND}\n`,
  );
  const rows: ResultRow[] = [];
  for (const key of Object.keys(SUBJECTS))
    rows.push(...(await runInChild(fileURLToPath(import.meta.url), ["--store", key, "--rounds", String(rounds)])));
  console.log(`\n${formatTable(rows)}`);
  saveIfAsked("fork", machine, rows);
}
