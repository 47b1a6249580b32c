// A recorded task as a regression test: refund.jsonl (written by record.ts) replays with the
// support agent as the code defines it now. Nothing runs: the model answers with the recorded
// turns and the tools with the recorded results, and every request the replay builds is compared,
// by its digest, with the one recorded. Changing the instructions changes turn 1's request.
import { readFileSync } from "node:fs";
import { assertReplayIdentical, replayRecording } from "@sema-agent/core/testing";
import { supportAgent } from "./agent.ts";

const file = readFileSync(new URL("./refund.jsonl", import.meta.url), "utf8");

const same = await assertReplayIdentical(file, { agent: supportAgent() });
const changed = await replayRecording(file, { agent: supportAgent("You run the support desk. Refund at once.") });
const divergence = changed.divergence;
if (changed.outcome !== "diverged" || divergence?.turn !== 1 || divergence.parts.join() !== "system")
  throw new Error(`expected turn 1's system text to differ, got ${JSON.stringify(changed.divergence)}`);
for (const turn of same.turns) console.log(`as it is: turn ${turn.turn} (seq ${turn.seq}) ${turn.verdict}`);
console.log(`with new instructions: ${divergence.diff.split("\n")[0]?.replace(/; the replay sent:$/, "")}`);
console.log(
  `refund.jsonl replays ${same.outcome} (${same.turns.length} turns); ` +
    `with new instructions: ${changed.outcome} at turn ${divergence.turn} (${divergence.parts.join(", ")})`,
);
