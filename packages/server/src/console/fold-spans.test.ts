/**
 * The console's timeline and the traces cannot drift: for any log, the legs, turns and tool calls
 * of `console/fold.js` are the `sema.leg`, `chat` and `execute_tool` spans of @sema-agent/otel's
 * span fold (what GET /v1/tasks/{id}/trace serves) — same keys, same start and end, same end
 * reason — and each wait for approval starts where the leg's `sema.approval.requested` event is.
 * A span the trace closes only because the log stops there (`sema.span.open`) is still running in
 * the timeline. A fork's copy of a leg still open ends at its `task_forked` in both.
 */
import {
  decideApproval,
  defineTool,
  MemoryStore,
  runLeg,
  type StoredEvent,
  sendInput,
  startTask,
} from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { foldSpans, LEG_SPAN, SEMA, SPAN_EVENT } from "@sema-agent/otel";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TaskFold } from "../../console/fold.js";
import { writeTool } from "../test-support/api-fixture.ts";
import { taskLog } from "./fold-arbitraries.ts";

function sameAsSpans(log: readonly StoredEvent[]) {
  const fold = new TaskFold();
  fold.addAll(log);
  const spans = foldSpans(log);
  const legSpans = spans.filter((span) => span.name === LEG_SPAN);
  expect(fold.legs.map((leg) => leg.key).sort()).toEqual(legSpans.map((span) => span.key).sort());
  for (const span of legSpans) {
    const leg = fold.legs.find((candidate) => candidate.key === span.key);
    const open = span.attributes[SEMA.open] === true;
    expect(leg?.start, span.key).toBe(span.start);
    expect(leg?.end, span.key).toBe(open ? undefined : span.end);
    expect(leg?.reason, span.key).toBe(span.attributes[SEMA.legEndReason]);
    const children = spans.filter(
      (child) => child.parentKey === span.key && (child.key.startsWith("chat:") || child.key.startsWith("tool:")),
    );
    const items = leg?.items.filter((item) => item.kind !== "wait") ?? [];
    expect(items.map((item) => item.key).sort(), span.key).toEqual(children.map((child) => child.key).sort());
    for (const child of children) {
      const item = items.find((candidate) => candidate.key === child.key);
      expect(item?.start, child.key).toBe(child.start);
      expect(item?.end, child.key).toBe(child.attributes[SEMA.open] === true ? undefined : child.end);
    }
    const waits = leg?.items.filter((item) => item.kind === "wait").map((item) => item.start) ?? [];
    const requested = span.events
      .filter((event) => event.name === SPAN_EVENT.approvalRequested)
      .map((event) => event.at);
    expect(waits, span.key).toEqual(requested);
  }
}

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => `found ${q}`,
});

describe("the console's timeline and the span fold", () => {
  it("agree on a real run: a tool, a steer, an approval and a resumed leg", async () => {
    let now = Date.parse("2026-12-01T10:00:00.000Z");
    const store = new MemoryStore({ now: () => (now += 7) });
    const model = new ScriptedModel(
      [
        { text: "Looking", toolCalls: [{ name: "lookup", input: { q: "style" }, callId: "c1" }] },
        { toolCalls: [{ name: "write_note", input: { text: "tabs" }, callId: "c2" }] },
        { text: "Done" },
      ],
      { mode: "by-transcript" },
    );
    const agent = { model, tools: [lookup, writeTool] };
    const taskId = await startTask(store, { objective: "Tidy the notes", principal: "local" });
    await sendInput(store, taskId, { text: "Use tabs", carrier: "steer" });
    await runLeg({ store, agent }, taskId);
    const waiting = await store.read(taskId);
    const request = waiting.find((event) => event.type === "approval_requested");
    if (request?.type !== "approval_requested") throw new Error("no approval requested");
    sameAsSpans(waiting);
    await decideApproval(store, taskId, {
      callId: "c2",
      decision: "approve",
      digest: request.digest,
      actor: { id: "dana", verified: true },
      principal: "local",
    });
    await runLeg({ store, agent }, taskId);
    const log = await store.read(taskId);
    expect(log.at(-1)?.type).toBe("leg_ended");
    sameAsSpans(log);
  });

  it("agree on any log", () => {
    fc.assert(fc.property(taskLog, (log) => sameAsSpans(log)));
  });
});
