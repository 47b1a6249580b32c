/**
 * Trace context over A2A, both ways. Incoming: a message sent by the official `@a2a-js/sdk`
 * client with a `traceparent` (as a service parameter, which the SDK sends as an HTTP header) is
 * recorded on the task it starts. Outgoing: a Sema task whose `delegateA2A` call runs with the
 * host's `traceparentOf` (otel's `callTraceparent`) sends its call span's context, and the remote
 * Sema records it, so the delegation is one trace across the two servers' logs.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SendMessageRequest } from "@a2a-js/sdk";
import { delegateA2A } from "@sema-agent/a2a";
import { MemoryStore, runLeg, type Store, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { callTraceparent, spanIdOf, traceTask } from "@sema-agent/otel";
import { afterEach, describe, expect, it } from "vitest";
import { type A2AServer, a2aClient, freshDir, startA2AServer, type Transport } from "../test-support/a2a-server.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

let server: A2AServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The span records of a task's rebuilt trace (the exporter takes them and drops them). */
function spansOf(store: Store, taskId: string) {
  return traceTask(store, taskId, {
    exporter: { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} },
    env: {},
  });
}

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("A2A over %s with a traceparent", (transport) => {
  it("the official client's traceparent is recorded on the task it starts; a malformed one is ignored", async () => {
    dir = freshDir();
    server = await startA2AServer(join(dir, "remote.db"), { default: scriptedAgent([{ text: "done" }]) });
    const client = await a2aClient(server.serving.url, server.serving.firstToken?.token ?? "", transport);
    const send = (text: string) =>
      SendMessageRequest.fromJSON({
        message: { messageId: `m-${text}`, role: "ROLE_USER", parts: [{ text }] },
        configuration: { returnImmediately: true },
      });
    const traceparent = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
    const good = await client.sendMessage(send("Traced"), { serviceParameters: { traceparent } });
    const bad = await client.sendMessage(send("Untraced"), { serviceParameters: { traceparent: "00-not-a-trace" } });
    const created = async (task: typeof good) => {
      const [first] = await (server as A2AServer).store.read("id" in task ? task.id : "", { limit: 1 });
      return first?.type === "task_created" ? first : undefined;
    };
    expect((await created(good))?.traceContext).toEqual({ traceparent });
    const untraced = await created(bad);
    expect(untraced?.objective).toBe("Untraced");
    expect(untraced?.traceContext).toBeUndefined();
  });
});

describe("Sema to Sema over A2A", () => {
  it("is one trace: the remote task's root is a child of the delegating call's execute_tool span", async () => {
    dir = freshDir();
    server = await startA2AServer(join(dir, "remote.db"), { default: scriptedAgent([{ text: "The total is 42." }]) });
    const local = new MemoryStore();
    const agent = {
      model: new ScriptedModel(
        [
          { toolCalls: [{ name: "delegate_a2a", input: { message: "What is the total?" }, callId: "c1" }] },
          { text: "The remote agent says 42." },
        ],
        { mode: "by-transcript" },
      ),
      tools: [delegateA2A({ url: server.serving.url, token: server.serving.firstToken?.token ?? "" })],
    };
    const taskId = await startTask(local, {
      objective: "Ask billing for the total",
      traceContext: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    });
    const outcome = await runLeg({ store: local, agent, traceparentOf: callTraceparent(local) }, taskId);
    expect(outcome.status).toBe("completed");
    const remote = await server.store.listTasks({ principal: "local" });
    const remoteId = remote.tasks[0]?.taskId ?? "";
    const localSpans = await spansOf(local, taskId);
    const remoteSpans = await spansOf(server.store, remoteId);
    const call = localSpans.find((span) => span.name === "execute_tool delegate_a2a");
    const remoteRoot = remoteSpans.find((span) => span.parentKey === undefined);
    expect(call).toBeDefined();
    expect(remoteRoot?.parentSpanId).toBe(spanIdOf(taskId, call?.key ?? ""));
    expect(new Set([...localSpans, ...remoteSpans].map((span) => span.traceId))).toEqual(new Set([CALLER_TRACE]));
  });

  it("sends nothing when the host gives no traceparent", async () => {
    dir = freshDir();
    server = await startA2AServer(join(dir, "remote.db"), { default: scriptedAgent([{ text: "ok" }]) });
    const local = new MemoryStore();
    const agent = {
      model: new ScriptedModel(
        [{ toolCalls: [{ name: "delegate_a2a", input: { message: "Hi" }, callId: "c1" }] }, { text: "done" }],
        { mode: "by-transcript" },
      ),
      tools: [delegateA2A({ url: server.serving.url, token: server.serving.firstToken?.token ?? "" })],
    };
    const taskId = await startTask(local, { objective: "Say hi remotely" });
    expect((await runLeg({ store: local, agent }, taskId)).status).toBe("completed");
    const remote = await server.store.listTasks({ principal: "local" });
    const [first] = await server.store.read(remote.tasks[0]?.taskId ?? "", { limit: 1 });
    expect(first?.type === "task_created" && first.traceContext).toBeUndefined();
  });
});
