// The regression test: the recorded task must replay byte for byte with the agent as it is now.
// When a change alters what the model is sent (instructions, tools, settings, how a result is
// rendered), the test fails and its message says which turn, which part, and the bytes.
import { readFileSync } from "node:fs";
import { assertReplayIdentical } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { supportAgent } from "./agent.ts";
import { record } from "./record.ts";

const file = readFileSync(new URL("./refund.jsonl", import.meta.url), "utf8");

describe("the recorded refund task", () => {
  it("replays identically with the support agent", async () => {
    const report = await assertReplayIdentical(file, { agent: supportAgent() });
    expect(report).toMatchObject({ outcome: "identical", recordedTurns: 3 });
  });

  it("fails when the instructions change, with the turn, the part and the new text in the message", async () => {
    const agent = supportAgent("You run the support desk of a tea shop. Refund whatever is asked.");
    const failure = assertReplayIdentical(file, { agent });
    await expect(failure).rejects.toThrow(/: diverged\n {2}turn 1 \(seq \d+\): different\n/);
    await expect(failure).rejects.toThrow(
      /first divergence at turn 1 \(seq \d+\):\nsystem instructions differ \(recorded sha256:[0-9a-f]{12}…, replayed sha256:[0-9a-f]{12}…\); the replay sent:\n/,
    );
    await expect(failure).rejects.toThrow("Refund whatever is asked.");
  });

  it("is what record.ts writes, up to ids and times: a fresh recording replays the same way", async () => {
    const fresh = await record();
    await expect(assertReplayIdentical(fresh, { agent: supportAgent() })).resolves.toMatchObject({
      outcome: "identical",
    });
  });
});
