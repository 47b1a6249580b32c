/**
 * A `tools/call` over Streamable HTTP with `params._meta.traceparent` (MCP's convention) records
 * it on the event the call causes: run_<agent> on task_created, send_to_task on the input. A
 * malformed one is ignored; the session's own opening request carries none into later calls.
 */
import { afterEach, describe, expect, it } from "vitest";
import { data, type McpFixture, mcpFixture } from "./test-support.ts";

let fx: McpFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const STEER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("MCP tools/call with _meta.traceparent", () => {
  it("is recorded on the task it starts and the input it sends; a malformed one is not", async () => {
    // Both tasks park for an approval, so the input reaches a task that has not ended.
    fx = await mcpFixture([
      { toolCalls: [{ name: "write_note", input: { text: "hello" }, callId: "call-1" }] },
      { text: "finished" },
    ]);
    const client = await fx.client(fx.tokens.alice);
    const run = async (objective: string, traceparent: string) =>
      data<{ taskId: string }>(
        await client.callTool({
          name: "run_default",
          arguments: { objective, wait: false },
          _meta: { traceparent, tracestate: "congo=t61rcWkgMzE" },
        }),
      ).taskId;
    const traced = await run("Traced", TRACEPARENT);
    const untraced = await run("Untraced", "00-NOT-A-TRACEPARENT");
    const createdOf = async (taskId: string) => {
      const [first] = await (fx as McpFixture).store.read(taskId, { limit: 1 });
      return first?.type === "task_created" ? first : undefined;
    };
    expect((await createdOf(traced))?.traceContext).toEqual({
      traceparent: TRACEPARENT,
      tracestate: "congo=t61rcWkgMzE",
    });
    expect((await createdOf(untraced))?.objective).toBe("Untraced");
    expect((await createdOf(untraced))?.traceContext).toBeUndefined();
    const sent = await client.callTool({
      name: "send_to_task",
      arguments: { taskId: traced, text: "One more thing" },
      _meta: { traceparent: STEER },
    });
    expect(sent.isError).not.toBe(true);
    const inputs = (await fx.store.read(traced)).filter(
      (event) => event.type === "human_input" && event.traceContext !== undefined,
    );
    expect(inputs.map((event) => event.type === "human_input" && event.traceContext)).toEqual([{ traceparent: STEER }]);
  });
});
