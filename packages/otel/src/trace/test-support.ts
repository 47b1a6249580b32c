// A scripted task with two tool calls, an approval, a steer sent while it waits and a resume,
// on a store whose clock steps a second per read so every stored `at` is distinct and known.

import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import {
  decideApproval,
  defineTool,
  type Emit,
  MemoryStore,
  runLeg,
  type Store,
  sendInput,
  startTask,
} from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";

/** Every text the task carries: none may reach a span unless content capture is on. */
export const TEXTS = {
  objective: "Plan the trip to Lisbon for Ana",
  steer: "Also book a hotel near Alfama",
  toolInput: "itinerary-Lisbon-secret",
  modelText: "Looking up flights for the Lisbon plan",
  toolOutput: "TAP flight 1234 at dawn",
  result: "Itinerary ready with Alfama hotel",
} as const;

const lookup = defineTool({
  name: "lookup",
  description: "look something up",
  inputSchema: z.object({ query: z.string() }),
  execute: () => TEXTS.toolOutput,
});

const writeFile = defineTool({
  name: "write_file",
  description: "write a file",
  inputSchema: z.object({ path: z.string(), content: z.string() }),
  needsApproval: () => true,
  execute: (input) => `wrote ${input.path}`,
});

/**
 * Runs the scripted task, each leg (1, 2) with the `emit` made for it, as if each ran in its own
 * process when the maker returns a new one; returns the store and the id.
 */
export async function runScriptedTask(makeEmit?: (store: Store, leg: number) => Emit) {
  let now = Date.parse("2026-11-30T10:00:00.000Z");
  const store = new MemoryStore({ now: () => (now += 1000) });
  const model = new ScriptedModel(
    [
      { text: TEXTS.modelText, toolCalls: [{ name: "lookup", input: { query: "flights Lisbon" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "plan.txt", content: TEXTS.toolInput } }] },
      { text: TEXTS.result },
    ],
    { mode: "by-transcript", id: "script:planner" },
  );
  const agent = { model, tools: [lookup, writeFile] };
  const taskId = await startTask(store, { objective: TEXTS.objective, agent: "planner", principal: "acme" });
  const harness = (leg: number) =>
    makeEmit === undefined ? { store, agent } : { store, agent, emit: makeEmit(store, leg) };
  const first = await runLeg(harness(1), taskId);
  if (first.parkedReason !== "approval") throw new Error(`expected an approval park, got ${JSON.stringify(first)}`);
  const events = await store.read(taskId);
  const request = events.find((event) => event.type === "approval_requested");
  if (request?.type !== "approval_requested") throw new Error("no approval requested");
  await sendInput(store, taskId, { text: TEXTS.steer, actor: { id: "ana", verified: true } });
  await decideApproval(store, taskId, {
    callId: request.callId,
    digest: request.digest,
    decision: "approve",
    actor: { id: "bob", verified: true },
    principal: "acme",
  });
  const second = await runLeg(harness(2), taskId);
  if (second.status !== "completed") throw new Error(`expected completion, got ${JSON.stringify(second)}`);
  return { store, taskId };
}

/** A span as the tests compare it: everything but the SDK's object identity (links included), sorted by id. */
export function shape(spans: readonly ReadableSpan[]) {
  return spans
    .map((span) => ({
      id: span.spanContext().spanId,
      traceId: span.spanContext().traceId,
      parent: span.parentSpanContext?.spanId,
      name: span.name,
      kind: span.kind,
      start: span.startTime,
      end: span.endTime,
      status: span.status,
      attributes: span.attributes,
      events: span.events,
      links: span.links,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
