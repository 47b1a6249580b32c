import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import type { AppendOptions } from "../../ports/store.ts";
import type { ExternalTool, TaskEvent } from "../../protocol/task-event.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { defineTool } from "../tools/define-tool.ts";
import { cancel } from "./control.ts";
import { offerExternalTools, submitToolResult } from "./external-tools.ts";
import { sendInput } from "./send-input.ts";
import { startTask } from "./start-task.ts";

const pickColor: ExternalTool = {
  name: "pick_color",
  description: "Ask the person to pick a color in the page",
  inputSchema: { type: "object", properties: { hint: { type: "string" } } },
};

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: z.object({ q: z.string() }),
  execute: ({ q }) => `found ${q}`,
});

async function world(turns: ScriptedTurn[], tools: ExternalTool[] = [pickColor]) {
  const store = new MemoryStore();
  const model = new ScriptedModel(turns, { mode: "by-transcript" });
  const taskId = await startTask(store, { objective: "Paint it", principal: "acme", externalTools: tools });
  const leg = () => runLeg({ store, agent: { model, tools: [lookup] } }, taskId);
  const state = async () => fold(await store.read(taskId));
  return { store, model, taskId, leg, state };
}

const callPick: ScriptedTurn = {
  toolCalls: [
    { name: "lookup", input: { q: "palette" }, callId: "call-look" },
    { name: "pick_color", input: { hint: "warm" }, callId: "call-pick" },
  ],
};

describe("external tools", () => {
  it("are offered to the model; a call to one parks the task until its result is recorded, then resumes", async () => {
    const w = await world([callPick, { text: "Painted it red." }]);
    expect(await w.leg()).toMatchObject({ status: "parked", parkedReason: "tool" });
    expect(w.model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["lookup", "pick_color"]);
    expect(w.model.requests[0]?.tools[1]).toEqual({
      name: "pick_color",
      description: pickColor.description,
      inputSchema: pickColor.inputSchema,
    });
    // The agent's tool ran; the external call is open, not run, not settled by the leg's end.
    const parked = await w.state();
    expect(parked.openToolCalls.map((call) => call.callId)).toEqual(["call-pick"]);
    expect(parked.transcript.filter((e) => e.role === "tool").map((e) => e.callId)).toEqual(["call-look"]);
    // Nothing wakes it but the result: not an input, not a leg started anyway.
    await sendInput(w.store, w.taskId, { text: "hurry" });
    expect(await w.store.listRunnable()).toEqual([]);
    expect(await w.leg()).toMatchObject({ status: "parked", parkedReason: "tool" });
    expect(w.model.requests).toHaveLength(1);

    await submitToolResult(w.store, w.taskId, { callId: "call-pick", output: { color: "red" } });
    expect((await w.store.listRunnable()).map((r) => r.taskId)).toEqual([w.taskId]);
    expect(await w.leg()).toMatchObject({ status: "completed", result: "Painted it red." });
    const result = (await w.store.read(w.taskId)).find((e) => e.type === "tool_result" && e.callId === "call-pick");
    expect(result).toMatchObject({ status: "ok", name: "pick_color", output: { color: "red" } });
    // The model got it fenced as untrusted output, with the steer sent while it waited.
    const last = w.model.requests.at(-1)?.transcript ?? [];
    const answer = last.find((e) => e.role === "tool" && e.callId === "call-pick");
    expect(answer?.role === "tool" ? answer.content : "").toMatch(
      /^<untrusted-[^>]+ kind="tool_output" from="pick_color">\n\{"color":"red"\}\n<\/untrusted-/,
    );
    expect(last.some((e) => e.role === "user" && e.content.includes("hurry"))).toBe(true);
  });

  it("refuses a result for a call that does not wait for one, and for a finished task; an error result is an error", async () => {
    const w = await world([callPick, { text: "No color, then." }]);
    await w.leg();
    await expect(submitToolResult(w.store, w.taskId, { callId: "call-look", output: "x" })).rejects.toMatchObject({
      code: "InvalidInput",
    });
    await expect(submitToolResult(w.store, w.taskId, { callId: "nope", output: "x" })).rejects.toMatchObject({
      code: "InvalidInput",
    });
    await submitToolResult(w.store, w.taskId, { callId: "call-pick", status: "error", output: "closed the dialog" });
    await expect(submitToolResult(w.store, w.taskId, { callId: "call-pick", output: "x" })).rejects.toMatchObject({
      code: "InvalidInput",
    });
    expect(await w.leg()).toMatchObject({ status: "completed" });
    const results = (await w.store.read(w.taskId)).filter((e) => e.type === "tool_result" && e.callId === "call-pick");
    expect(results).toMatchObject([{ status: "error" }]);
    await expect(submitToolResult(w.store, w.taskId, { callId: "call-pick", output: "x" })).rejects.toMatchObject({
      code: "TaskFinished",
    });
  });

  it("a cancel settles the open call; the agent's own tool of the same name wins; offers replace and dedupe", async () => {
    const shadow: ExternalTool = { name: "lookup", inputSchema: { type: "object" } };
    const w = await world(
      [{ toolCalls: [{ name: "lookup", input: { q: "a" }, callId: "c1" }] }, { text: "ok" }],
      [shadow],
    );
    expect(await w.leg()).toMatchObject({ status: "completed" });
    expect(w.model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["lookup"]);

    expect(await offerExternalTools(w.store, w.taskId, [shadow])).toBe(false);
    expect(await offerExternalTools(w.store, w.taskId, [pickColor])).toBe(true);
    expect((await w.state()).externalTools).toEqual([pickColor]);
    expect(await offerExternalTools(w.store, w.taskId, [])).toBe(true);
    expect((await w.state()).externalTools).toBeUndefined();
    await expect(offerExternalTools(w.store, w.taskId, [pickColor, pickColor])).rejects.toMatchObject({
      code: "InvalidInput",
    });
    await expect(offerExternalTools(w.store, w.taskId, [{ name: "bad name", inputSchema: {} }])).rejects.toMatchObject({
      code: "InvalidInput",
      message: expect.stringContaining("tools.0.name"),
    });

    const other = await world([callPick]);
    await other.leg();
    await cancel(other.store, other.taskId);
    const state = await other.state();
    expect(state.openToolCalls).toEqual([]);
    expect(state.transcript.at(-1)).toMatchObject({ role: "tool", callId: "call-pick", status: "interrupted" });
  });

  it("a result recorded while the leg is about to park lets the leg go on instead of parking for nothing", async () => {
    /** Records the client's result just before the leg's park is appended, as a fast client would. */
    class RacingStore extends MemoryStore {
      raced = false;
      override async append(taskId: string, events: TaskEvent[], options: AppendOptions) {
        const parks = events.some((e) => e.type === "leg_ended" && e.reason === "parked:tool");
        if (parks && !this.raced) {
          this.raced = true;
          await submitToolResult(this, taskId, { callId: "call-pick", output: "teal" });
        }
        return super.append(taskId, events, options);
      }
    }
    const store = new RacingStore();
    const model = new ScriptedModel([callPick, { text: "Teal it is." }], { mode: "by-transcript" });
    const taskId = await startTask(store, { objective: "Paint it", principal: "acme", externalTools: [pickColor] });
    expect(await runLeg({ store, agent: { model, tools: [lookup] } }, taskId)).toMatchObject({
      status: "completed",
      result: "Teal it is.",
    });
    expect(store.raced).toBe(true);
  });
});
