// A stream with a framer: its own frames over the same log, ending where the framer says, not when
// the task is finished — it reads on past a finished task that is woken again (its tail stops
// there, and the stream joins a new one).
import { MemoryStore, runLeg, sendInput, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { until } from "../test-support/until.ts";
import { sseStream } from "./sse-stream.ts";
import type { StreamFramer } from "./sse-subscriber.ts";
import { TaskTails } from "./task-tail.ts";

const encoder = new TextEncoder();

/** Frames each stored event's type; done at the `legs`-th leg_ended. */
function typesUntil(legs: number): StreamFramer & { seen: string[] } {
  let ended = 0;
  const seen: string[] = [];
  return {
    seen,
    opening: () => encoder.encode("open\n"),
    stored: (event) => {
      seen.push(event.type);
      if (event.type === "leg_ended") ended++;
      return encoder.encode(`${event.type}\n`);
    },
    ephemeral: () => undefined,
    live: () => undefined,
    get done() {
      return ended >= legs;
    },
    closing: () => encoder.encode("close\n"),
    cut: (type) => encoder.encode(`cut ${type}\n`),
  };
}

describe("a stream with a framer", () => {
  it("outlives a finished task that is woken twice, and ends where its framer says", async () => {
    const store = new MemoryStore();
    const agent = { name: "a", model: new ScriptedModel([{ text: "one" }, { text: "two" }, { text: "three" }]) };
    const taskId = await startTask(store, { objective: "go" });
    await runLeg({ store, agent }, taskId);
    const record = await store.getTask(taskId);
    const framer = typesUntil(2);
    const tails = new TaskTails(store);
    const reader = sseStream({
      store,
      hub: undefined,
      tails,
      record,
      afterSeq: record.lastSeq,
      heartbeatMs: 60_000,
      framer,
    }).getReader();
    let text = "";
    const readUntil = async (what: string) => {
      while (!text.includes(what)) {
        const { value, done } = await reader.read();
        if (done) return;
        text += new TextDecoder().decode(value);
      }
    };
    // Read in the background, so the stream is level with the log and on the task's tail.
    const closed = readUntil("close\n");
    await until(() => tails.size > 0, "the stream to join the task's tail");
    for (let wake = 0; wake < 2; wake++) {
      await sendInput(store, taskId, { text: `again ${wake}`, carrier: "wake" });
      await runLeg({ store, agent }, taskId);
    }
    await closed;
    expect(framer.seen.filter((type) => type === "task_completed")).toHaveLength(2);
    expect(text.endsWith("leg_ended\nclose\n")).toBe(true);
    expect((await reader.read()).done).toBe(true);
  });
});
