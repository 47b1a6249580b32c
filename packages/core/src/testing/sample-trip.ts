/**
 * A sample recorded task, written into any store: tool calls, a steer that arrives while a tool
 * runs, an approval, a child task and a final answer. Deterministic (a pinned random source and a
 * stepping clock), so two stores record the same bytes. The time-travel tests and the store
 * conformance suite's fork and replay cases record it.
 */
import { z } from "zod";
import type { Agent, HarnessOptions } from "../harness/agent.ts";
import { runLeg } from "../harness/leg/run-leg.ts";
import { sendInput } from "../harness/tasks/send-input.ts";
import { startTask } from "../harness/tasks/start-task.ts";
import { decideApproval } from "../harness/tools/approvals.ts";
import { defineTool } from "../harness/tools/define-tool.ts";
import type { ModelRequest } from "../ports/model.ts";
import type { Store } from "../ports/store.ts";
import { ScriptedModel, type ScriptedTurn } from "./scripted-model.ts";

const SCRIPTS: Record<string, ScriptedTurn[]> = {
  "Plan the trip to Lisbon": [
    { text: "Checking the weather.", toolCalls: [{ name: "weather", input: { city: "Lisbon" } }] },
    { text: "Booking the hotel.", toolCalls: [{ name: "book", input: { hotel: "Alfama Inn" } }] },
    { toolCalls: [{ name: "delegate", input: { objective: "Find three restaurants" } }] },
    { text: "Sunny, hotel booked, restaurants found: A, B, C." },
  ],
  "Find three restaurants": [{ text: "A, B, C." }],
};

/** A model that answers by the task's objective and the turns it has had (stateless, as replay needs). */
export function tripModel(): ScriptedModel {
  return new ScriptedModel(
    Array.from({ length: 40 }, () => (request: ModelRequest) => {
      const first = request.transcript[0];
      const objective = first?.role === "user" ? first.content : "";
      const turn = request.transcript.filter((e) => e.role === "assistant").length;
      return SCRIPTS[objective]?.[turn] ?? { text: `(no turn ${turn})` };
    }),
  );
}

/** The trip agent's tools: `weather` (its run brings a steer), `book` (needs approval). */
export function tripTools(store: Store, taskId: () => string) {
  const weather = defineTool({
    name: "weather",
    description: "The weather in a city",
    inputSchema: z.object({ city: z.string() }),
    readOnly: true,
    execute: async ({ city }) => {
      // A person steers while the tool runs: the leg applies it at its next step boundary.
      await sendInput(store, taskId(), { text: "Prefer a quiet street.", actor: { id: "ana", verified: true } });
      return `Sunny in ${city}`;
    },
  });
  const book = defineTool({
    name: "book",
    description: "Book a hotel",
    inputSchema: z.object({ hotel: z.string() }),
    needsApproval: true,
    execute: ({ hotel }) => ({ booked: hotel, ref: "BK-1" }),
  });
  return [weather, book];
}

/** A counting random source and clock: the same bytes on every run. */
export function pinned(): Pick<HarnessOptions, "randomBytes" | "clock"> {
  let draw = 0;
  let now = Date.parse("2026-12-01T10:00:00.000Z");
  return {
    randomBytes: (size) => Uint8Array.from({ length: size }, (_, i) => (draw++ * 31 + i) % 256),
    clock: () => (now += 1000),
  };
}

/** Record the trip task in `store`; returns its id and the agent it ran with. */
export async function recordTrip(store: Store): Promise<{ taskId: string; agent: Agent }> {
  let id = "";
  const agent: Agent = { name: "trip", model: tripModel(), tools: tripTools(store, () => id), delegation: {} };
  const options: HarnessOptions = { store, agent, ...pinned() };
  id = await startTask(store, { objective: "Plan the trip to Lisbon", principal: "acme", model: "script:inline" });
  const first = await runLeg(options, id);
  if (first.status !== "parked") throw new Error(`expected a park for approval, got ${first.status}`);
  const [requested] = (await store.read(id)).filter((e) => e.type === "approval_requested");
  if (requested?.type !== "approval_requested") throw new Error("no approval requested");
  await decideApproval(store, id, {
    callId: requested.callId,
    digest: requested.digest,
    decision: "approve",
    actor: { id: "ana", verified: true },
    principal: "acme",
  });
  const second = await runLeg(options, id);
  if (second.status !== "completed") throw new Error(`expected completion, got ${second.status}`);
  return { taskId: id, agent };
}
