// Crash and outage tests without killing anything: dyingStore makes the host "die" after a chosen
// number of appends, flakyStore cuts the store off while `down` is true. Runs offline.
import { defineTool, MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { dyingStore, flakyStore, noteTool, noteTurns, ScriptedModel, SimulatedDeath } from "@sema-agent/core/testing";
import { z } from "zod";

// 1. A host dies mid-task; another recovers it from the log.
// The store's clock is moved by hand, so the dead host's lease lapses when we say, not after a wait.
let ahead = 0;
const store = new MemoryStore({ now: () => Date.now() + ahead });
const { note, runs } = noteTool(); // a tool that is not idempotent and counts its runs
// by-transcript: the turn played depends on the transcript, so a new process continues the script.
const agent = { model: new ScriptedModel(noteTurns(["a", "b"]), { mode: "by-transcript" }), tools: [note] };
const taskId = await startTask(store, { objective: "Take two notes" });

// The 3rd append (the first note's result) commits, then the host dies before it hears back.
const dying = dyingStore(store, { appendsBeforeDeath: 2, when: "after" });
try {
  await runLeg({ store: dying, agent, holder: { id: "host-1" }, leaseTtlMs: 1000 }, taskId);
} catch (error) {
  if (!(error instanceof SimulatedDeath)) throw error;
}
ahead += 1001; // host-1's lease has expired
const recovered = await runLeg({ store, agent, holder: { id: "host-2" }, leaseTtlMs: 1000 }, taskId);
console.log(recovered.status, runs); // completed { a: 1, b: 1 }: each note ran once

// 2. The store goes away in the middle of a leg and comes back: the leg waits it out.
const flaky = flakyStore(new MemoryStore());
const cut = defineTool({
  name: "cut",
  description: "Cut the store off",
  inputSchema: z.object({}),
  execute: () => {
    flaky.down = true; // the result's append will fail with StoreUnavailable
    return "cut";
  },
});
const retries: number[] = [];
const outage = await runLeg(
  {
    store: flaky,
    agent: { model: new ScriptedModel([{ toolCalls: [{ name: "cut", input: {} }] }, { text: "Done." }]), tools: [cut] },
    // The leg reports each retry on the emit sink (it cannot log it: the store is down). Bring it back.
    emit: (event) => {
      if (event.type !== "store_retry") return;
      retries.push(event.attempt);
      flaky.down = false;
    },
  },
  await startTask(flaky, { objective: "Survive an outage" }),
);
console.log(outage.status, retries); // completed [ 1 ]: one retry, then the append went through
