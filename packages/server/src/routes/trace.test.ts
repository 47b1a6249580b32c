// GET /v1/tasks/:taskId/trace: the task's rebuilt trace as OTLP/JSON, for the task's principal only,
// with no text of the task unless the operator set traceContent, whatever the environment says.
import { traceTaskJson } from "@sema-agent/otel";
import { afterEach, describe, expect, it, vi } from "vitest";
import { APPROVAL_SCRIPT, apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";

type KeyValue = { key: string; value: { stringValue?: string; boolValue?: boolean } };
type Span = {
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: KeyValue[];
  events: { name: string; attributes: KeyValue[] }[];
};
type TraceBody = { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };

const spansOf = (body: TraceBody) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
const attribute = (span: Span | undefined, key: string) =>
  span?.attributes.find((a) => a.key === key)?.value ?? undefined;

const OBJECTIVE = "Write the secret plan for Lisbon";

/** A task that waited for an approval (bob approved) and finished in a second leg. */
async function approvedTask(app: { traceContent?: boolean } = {}) {
  const fx = await apiFixture({ turns: APPROVAL_SCRIPT, app });
  const taskId = await createTask(fx, OBJECTIVE);
  expect((await runOnce(fx, taskId)).parkedReason).toBe("approval");
  const detail = await json<{ pendingApprovals: { digest: string }[] }>(await fx.call("GET", `/v1/tasks/${taskId}`));
  const decided = await fx.call("POST", `/v1/tasks/${taskId}/approvals/call-1`, {
    token: fx.tokens.bob,
    body: { decision: "approve", digest: detail.pendingApprovals[0]?.digest },
  });
  expect(decided.status).toBe(200);
  expect((await runOnce(fx, taskId)).status).toBe("completed");
  return { fx, taskId };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("GET /v1/tasks/:taskId/trace", () => {
  it("answers the task's trace as @sema-agent/otel rebuilds it: OTLP/JSON, spans nested under the task", async () => {
    const { fx, taskId } = await approvedTask();
    const response = await fx.call("GET", `/v1/tasks/${taskId}/trace`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const text = await response.text();
    expect(text).toBe(await traceTaskJson(fx.store, taskId, { captureContent: false }));

    const spans = spansOf(JSON.parse(text) as TraceBody);
    const root = spans.find((span) => span.parentSpanId === undefined);
    expect(root?.name).toBe("invoke_agent default");
    const legs = spans.filter((span) => span.name === "sema.leg");
    expect(legs.map((leg) => attribute(leg, "sema.leg.end_reason")?.stringValue)).toEqual([
      "parked:approval",
      "completed",
    ]);
    expect(legs.every((leg) => leg.parentSpanId === root?.spanId)).toBe(true);
    const tool = spans.find((span) => span.name === "execute_tool write_note");
    expect(legs.map((leg) => leg.spanId)).toContain(tool?.parentSpanId);
    expect(attribute(tool, "sema.approval.decision")?.stringValue).toBe("approve");
    expect(attribute(tool, "sema.approval.actor.id")?.stringValue).toBe("bob");
    expect(spans.flatMap((span) => span.events.map((event) => event.name))).toContain("sema.approval.requested");
    expect(spans.filter((span) => span.name.startsWith("chat "))).toHaveLength(2);
  });

  it("marks the open spans of a task that is still parked", async () => {
    const fx = await apiFixture({ turns: APPROVAL_SCRIPT });
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const spans = spansOf(await json<TraceBody>(await fx.call("GET", `/v1/tasks/${taskId}/trace`)));
    const root = spans.find((span) => span.parentSpanId === undefined);
    expect(attribute(root, "sema.span.open")?.boolValue).toBe(true);
  });

  it("keeps the task's texts out even when the server's environment turns content capture on", async () => {
    vi.stubEnv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true");
    const { fx, taskId } = await approvedTask();
    // The control: with capture on, the library itself would put the objective in.
    expect(await traceTaskJson(fx.store, taskId)).toContain(OBJECTIVE);
    const text = await (await fx.call("GET", `/v1/tasks/${taskId}/trace`)).text();
    expect(text).toContain("invoke_agent default");
    expect(text).not.toContain(OBJECTIVE);
    expect(text).not.toContain("gen_ai.input.messages");
  });

  it("carries token usage, and the task's texts only when the operator set traceContent", async () => {
    const plain = await approvedTask();
    const without = await (await plain.fx.call("GET", `/v1/tasks/${plain.taskId}/trace`)).text();
    expect(without).toContain("gen_ai.usage.input_tokens");
    expect(without).toContain("gen_ai.usage.output_tokens");
    expect(without).not.toContain(OBJECTIVE);

    const { fx, taskId } = await approvedTask({ traceContent: true });
    const text = await (await fx.call("GET", `/v1/tasks/${taskId}/trace`)).text();
    expect(text).toBe(await traceTaskJson(fx.store, taskId, { captureContent: true }));
    expect(text).toContain(OBJECTIVE);
    expect(text).toContain("gen_ai.usage.input_tokens");
  });

  it("refuses a traceContent that is not a boolean when the app is made", async () => {
    await expect(apiFixture({ app: { traceContent: "yes" as unknown as boolean } })).rejects.toThrow(/traceContent/);
  });

  it("is the task's principal's only: another principal's task is not found, as a missing one is", async () => {
    const { fx, taskId } = await approvedTask();
    const other = await fx.call("GET", `/v1/tasks/${taskId}/trace`, { token: fx.tokens.mallory });
    expect(other.status).toBe(404);
    const missing = await fx.call("GET", "/v1/tasks/no-such-task/trace", { token: fx.tokens.mallory });
    expect(missing.status).toBe(404);
    expect(await json(other)).toEqual({
      error: { code: "TaskNotFound", message: `task ${taskId} not found`, details: { taskId } },
    });
    expect(await json(missing)).toMatchObject({ error: { code: "TaskNotFound" } });
    expect((await fx.call("GET", `/v1/tasks/${taskId}/trace`, { token: null })).status).toBe(401);
    expect((await fx.call("GET", "/v1/tasks/bad%20id/trace")).status).toBe(400);
  });
});
