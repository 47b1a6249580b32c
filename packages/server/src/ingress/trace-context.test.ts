// The HTTP API records a request's W3C trace context on the event it causes: POST /v1/tasks on
// task_created, an input on its human_input, a decision on approval_decided. A malformed header is
// ignored (the request succeeds, nothing is recorded), never a 400.
import type { StoredEvent } from "@sema-agent/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { APPROVAL_SCRIPT, apiFixture, json, runOnce } from "../test-support/api-fixture.ts";

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const STEER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const DECISION = "00-0af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01";

const traced = (events: readonly StoredEvent[]) =>
  events.flatMap((event) =>
    "traceContext" in event && event.traceContext !== undefined ? [[event.type, event.traceContext]] : [],
  );

describe("traceparent on the HTTP API", () => {
  it("is recorded on task_created, the input and the decision each request causes", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
    const created = await fx.call("POST", "/v1/tasks", {
      body: { objective: "Write the note" },
      headers: { traceparent: TRACEPARENT, tracestate: "congo=t61rcWkgMzE" },
    });
    expect(created.status).toBe(201);
    const { taskId } = await json<{ taskId: string }>(created);
    await runOnce(fx, taskId);
    const input = await fx.call("POST", `/v1/tasks/${taskId}/inputs`, {
      body: { text: "Say hello nicely" },
      headers: { traceparent: STEER },
    });
    expect(input.status).toBeLessThan(300);
    const detail = await json<{ pendingApprovals: { digest: string }[] }>(await fx.call("GET", `/v1/tasks/${taskId}`));
    const decided = await fx.call("POST", `/v1/tasks/${taskId}/approvals/call-1`, {
      token: fx.tokens.bob,
      body: { decision: "approve", digest: detail.pendingApprovals[0]?.digest },
      headers: { traceparent: DECISION, tracestate: "Not Valid" },
    });
    expect(decided.status).toBe(200);
    expect(traced(await fx.store.read(taskId))).toEqual([
      ["task_created", { traceparent: TRACEPARENT, tracestate: "congo=t61rcWkgMzE" }],
      ["human_input", { traceparent: STEER }],
      // A malformed tracestate is dropped, the traceparent kept.
      ["approval_decided", { traceparent: DECISION }],
    ]);
  });

  it("a malformed traceparent is ignored, never refused, whatever it is", async () => {
    const fx = await apiFixture();
    // Header values a fetch client can send: printable, no CR or LF.
    const noise = fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF-f ,=z"), maxLength: 70 });
    const hex = (length: number) =>
      fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length });
    // Well-formed ones too, some with one character changed: each must be told apart.
    const wellFormed = fc.tuple(hex(32), hex(16), hex(2)).map(([t, s, f]) => `00-${t}-${s}-${f}`);
    const changed = fc
      .tuple(wellFormed, fc.nat(54), fc.constantFrom("G", "A", "-", " ", "0"))
      .map(([value, at, char]) => value.slice(0, at) + char + value.slice(at + 1));
    const header = fc.oneof(noise, wellFormed, changed);
    await fc.assert(
      fc.asyncProperty(header, async (traceparent) => {
        const response = await fx.call("POST", "/v1/tasks", { body: { objective: "x" }, headers: { traceparent } });
        expect(response.status).toBe(201);
        const { taskId } = await json<{ taskId: string }>(response);
        const [first] = await fx.store.read(taskId, { limit: 1 });
        const recorded = first?.type === "task_created" ? first.traceContext : undefined;
        // Only a valid version-00 header is recorded, and as it was sent.
        const valid = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/.test(traceparent.trim());
        expect(recorded).toEqual(valid ? { traceparent: traceparent.trim() } : undefined);
      }),
      { numRuns: 100 },
    );
    const wrong = await fx.call("POST", "/v1/tasks", {
      body: { objective: "x" },
      headers: { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` },
    });
    expect(wrong.status).toBe(201);
  });
});
