/**
 * The replay benchmark: what `replayTask` costs per model turn, against what the same task cost to
 * run live in the same process (the harness with an instant scripted model and one instant tool
 * call per turn, the harness benchmark's workload). The task is recorded on MemoryStore and on
 * SqliteStore (a real file); the replay reads it from there and runs in memory. The ratio is the
 * figure that travels between machines.
 *
 *   npm run bench:replay                    # 200 and 1,000 turns, 5 rounds
 *   npm run replay -w @sema-agent/bench -- --turns 200 --rounds 3
 *   npm run bench:replay -- --save          # and write bench/results/replay/…json
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Agent, MemoryStore, runLeg, type Store, startTask } from "@sema-agent/core";
import { lookupTool, lookupTurns, ScriptedModel } from "@sema-agent/core/testing";
import { replayTask } from "@sema-agent/core/time-travel";
import { SqliteStore } from "@sema-agent/sqlite";
import { describeMachine, formatMachine, formatTable, type ResultRow, timed } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    turns: { type: "string" },
    save: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
const lengths = values.turns === undefined ? [200, 1_000] : [Number(values.turns)];
const machine = describeMachine();

const stores: Record<string, (dir: string) => Store> = {
  MemoryStore: () => new MemoryStore(),
  "SqliteStore (file)": (dir) => new SqliteStore({ path: join(dir, "replay.db") }),
};

function agent(turns: number): Agent {
  return { model: new ScriptedModel(lookupTurns(turns)), tools: [lookupTool] };
}

/** One live run and its replay; `ms` of each. */
async function once(open: (dir: string) => Store, turns: number): Promise<{ live: number; replay: number }> {
  const dir = mkdtempSync(join(tmpdir(), "sema-replay-"));
  const store = open(dir);
  try {
    const taskId = await startTask(store, { objective: "Look the keys up" });
    const run = await timed(() => runLeg({ store, agent: agent(turns) }, taskId));
    if (run.value.status !== "completed") throw new Error(`the live run ended ${run.value.status}`);
    const replayed = await timed(() => replayTask(store, taskId, { agent: agent(turns) }));
    if (replayed.value.outcome !== "identical") throw new Error(`the replay was ${replayed.value.outcome}`);
    return { live: run.ms, replay: replayed.ms };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Warm-up: the first runs compile the code paths both sides take.
for (const open of Object.values(stores)) for (let i = 0; i < 3; i++) await once(open, 200);

const rows: ResultRow[] = [];
for (const [name, open] of Object.entries(stores)) {
  for (const turns of lengths) {
    const live: number[] = [];
    const replay: number[] = [];
    const ratio: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const run = await once(open, turns);
      live.push(run.live / turns);
      replay.push(run.replay / turns);
      ratio.push(run.replay / run.live);
    }
    const n = `${turns.toLocaleString("en-US")} turns`;
    rows.push(
      { subject: name, metric: `live run per turn, ${n}`, unit: "ms", samples: live },
      { subject: name, metric: `replay per turn, ${n}`, unit: "ms", samples: replay },
      { subject: name, metric: `replay ÷ live run, ${n}`, unit: "×", samples: ratio },
    );
  }
}
console.log(formatMachine(machine));
console.log(formatTable(rows));
saveIfAsked("replay", machine, rows);
