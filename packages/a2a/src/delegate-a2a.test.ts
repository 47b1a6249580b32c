// delegateA2A against a real A2A agent on a real socket, built from the SDK's own server side
// (test-support/remote-agent.ts): the answer reaches the model, progress streams into the log,
// a remote failure is a tool error the model reads, the bearer token goes with every request,
// an agent asking for input is answered through the same tool, and bad options never make a tool.
import { TaskState } from "@a2a-js/sdk";
import { MemoryStore, runLeg, type StoredEvent, startTask, type Tool } from "@sema-agent/core";
import { ConfigError } from "@sema-agent/core/protocol";
import { ScriptedModel, type ScriptedTurn, type ScriptStep } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type A2AProgress, delegateA2A } from "./index.ts";
import { gate, type RemoteAgent, startRemoteAgent, until } from "./test-support/remote-agent.ts";

let remote: RemoteAgent | undefined;
afterEach(async () => {
  await remote?.close();
  remote = undefined;
});

/** Run one task whose model calls the tool as scripted; what the model was told, and the log. */
async function run(tool: Tool, steps: ScriptStep[]) {
  const store = new MemoryStore();
  const taskId = await startTask(store, { objective: "Use the remote agent" });
  const model = new ScriptedModel(steps, { mode: "by-transcript" });
  const outcome = await runLeg({ store, agent: { model, tools: [tool] } }, taskId);
  const events = await store.read(taskId);
  const results = events.flatMap((e) => (e.type === "tool_result" ? [e] : []));
  return { outcome, events, results, model };
}

const ask = (message: string, extra: Record<string, string> = {}): ScriptedTurn => ({
  toolCalls: [{ name: "delegate_a2a", input: { message, ...extra } }],
});

function checkpoints(events: readonly StoredEvent[]) {
  return events.flatMap((e) => (e.type === "tool_checkpoint" ? [e.data] : []));
}

describe("delegateA2A", () => {
  it("delegates over JSON-RPC and the model reads the remote answer, fenced as untrusted", async () => {
    remote = await startRemoteAgent();
    const { outcome, results, events } = await run(delegateA2A({ url: remote.url }), [
      ask("What is 6 x 7?"),
      { text: "Done." },
    ]);
    expect(outcome).toMatchObject({ status: "completed", result: "Done." });
    expect(results).toHaveLength(1);
    expect(results[0]?.status).toBe("ok");
    expect(results[0]?.content).toContain("echo: What is 6 x 7?");
    expect(results[0]?.content).toMatch(/<untrusted[^>]*from="delegate_a2a"/);
    expect(remote.executions).toEqual(["What is 6 x 7?"]);
    expect(remote.calls).toEqual(["SendStreamingMessage"]);
    // The message was recorded before it was sent, the remote task's id as soon as it was named.
    const [sending, accepted] = checkpoints(events) as Array<Record<string, unknown>>;
    expect(sending).toMatchObject({ phase: "sending" });
    expect(accepted).toMatchObject({ phase: "accepted", state: "submitted", messageId: sending?.messageId });
  });

  it("speaks HTTP+JSON when that is the binding asked for", async () => {
    remote = await startRemoteAgent();
    const { results } = await run(delegateA2A({ url: remote.url, transports: ["HTTP+JSON"] }), [
      ask("over rest"),
      { text: "Done." },
    ]);
    expect(results[0]?.content).toContain("echo: over rest");
    expect(remote.calls).toEqual(["POST /message:stream"]);
  });

  it("an agent that does not stream is sent the message once and answers it", async () => {
    remote = await startRemoteAgent({ streaming: false });
    const { results } = await run(delegateA2A({ url: remote.url }), [ask("no streams here"), { text: "Done." }]);
    expect(results[0]?.content).toContain("echo: no streams here");
    expect(remote.calls).toEqual(["SendMessage"]);
  });

  it("streams progress: each new state is reported and recorded, artifact chunks are joined", async () => {
    remote = await startRemoteAgent();
    const step = gate();
    remote.script = async (turn) => {
      turn.status(TaskState.TASK_STATE_WORKING, "step 1 of 2");
      turn.artifact("part one; ");
      await step.wait;
      turn.artifact("part two", { append: true });
      turn.status(TaskState.TASK_STATE_COMPLETED, "all done");
    };
    const progress: A2AProgress[] = [];
    const tool = delegateA2A({
      url: remote.url,
      onProgress: (p) => {
        progress.push(p);
        if (p.state === "working") step.open();
      },
    });
    const { results, events } = await run(tool, [ask("long job"), { text: "Done." }]);
    expect(progress.map((p) => [p.state, p.text])).toEqual([
      ["submitted", undefined],
      ["working", "step 1 of 2"],
      ["completed", "all done"],
    ]);
    expect(new Set(progress.map((p) => p.remoteTaskId)).size).toBe(1);
    expect(checkpoints(events)).toEqual([
      expect.objectContaining({ phase: "sending" }),
      expect.objectContaining({ phase: "accepted", state: "submitted" }),
      expect.objectContaining({ phase: "accepted", state: "working", text: "step 1 of 2" }),
    ]);
    expect(results[0]?.content).toContain("part one; \npart two");
  });

  it("a stream cut after the remote task was named is followed again (SubscribeToTask), not sent again", async () => {
    remote = await startRemoteAgent();
    const agent = remote;
    const hold = gate();
    agent.script = async (turn) => {
      turn.status(TaskState.TASK_STATE_WORKING, "on it");
      await hold.wait;
      turn.artifact("made it");
      turn.status(TaskState.TASK_STATE_COMPLETED);
    };
    // The network fails once the client has seen the remote task at work.
    const tool = delegateA2A({ url: agent.url, onProgress: (p) => p.state === "working" && agent.dropConnections() });
    const done = run(tool, [ask("fragile"), { text: "Done." }]);
    await until(() => agent.calls.includes("SubscribeToTask"));
    hold.open();
    const { results } = await done;
    expect(results[0]).toMatchObject({ status: "ok" });
    expect(results[0]?.content).toContain("made it");
    expect(agent.executions).toEqual(["fragile"]);
    expect(agent.calls.filter((c) => c === "SendStreamingMessage")).toHaveLength(1);
  });

  it("a remote task that fails or is rejected is a tool error the model reads", async () => {
    remote = await startRemoteAgent();
    remote.script = async (turn) => {
      if (turn.text === "reject me") turn.status(TaskState.TASK_STATE_REJECTED, "not my job");
      else turn.status(TaskState.TASK_STATE_FAILED, "the database is down");
    };
    const { outcome, results, model } = await run(delegateA2A({ url: remote.url }), [
      { toolCalls: [{ name: "delegate_a2a", input: { message: "fail me" } }] },
      { toolCalls: [{ name: "delegate_a2a", input: { message: "reject me" } }] },
      { text: "Both failed." },
    ]);
    expect(outcome).toMatchObject({ status: "completed" });
    expect(results.map((r) => r.status)).toEqual(["error", "error"]);
    expect(results[0]?.content).toContain("The remote task failed. the database is down");
    expect(results[1]?.content).toContain("The remote agent rejected the task. not my job");
    const told = model.requests[1]?.transcript.at(-1);
    expect(told).toMatchObject({ role: "tool", status: "error" });
  });

  it("a remote task that asks for input: the model reads the question and answers it through the tool", async () => {
    remote = await startRemoteAgent();
    remote.script = async (turn) => {
      if (turn.ctx.task === undefined) {
        turn.status(TaskState.TASK_STATE_INPUT_REQUIRED, "Which currency?");
        return;
      }
      turn.artifact(`total in ${turn.text}: 42`);
      turn.status(TaskState.TASK_STATE_COMPLETED);
    };
    let question = "";
    const steps: ScriptStep[] = [
      ask("Total for November?"),
      (request) => {
        const last = request.transcript.at(-1);
        question = last?.role === "tool" ? last.content : "";
        // The task's id alone is enough: the remote agent keeps the answer in that task's context.
        const taskId = /taskId "([^"]+)"/.exec(question)?.[1] ?? "";
        return ask("EUR", { taskId });
      },
      { text: "42 EUR." },
    ];
    const { outcome, results } = await run(delegateA2A({ url: remote.url }), steps);
    expect(outcome).toMatchObject({ status: "completed", result: "42 EUR." });
    expect(question).toContain("The remote agent needs more input before it can go on: Which currency?");
    expect(results.map((r) => r.status)).toEqual(["ok", "ok"]);
    expect(results[1]?.content).toContain("total in EUR: 42");
    expect(remote.executions).toEqual(["Total for November?", "EUR"]);
    expect(results[1]?.content).toContain(
      /\[remote A2A task ([^,]+),/.exec(results[0]?.content ?? "")?.[0] ?? "missing",
    );
  });

  it("sends the token as a bearer with every request, the card's included; without it the call fails to connect", async () => {
    remote = await startRemoteAgent({ token: "s3cret" });
    const { results } = await run(delegateA2A({ url: remote.url, token: () => "s3cret" }), [
      ask("hello"),
      { text: "Done." },
    ]);
    expect(results[0]?.content).toContain("echo: hello");
    expect(remote.authorizations.length).toBeGreaterThanOrEqual(2);
    expect(new Set(remote.authorizations)).toEqual(new Set(["Bearer s3cret"]));

    const refused = await run(delegateA2A({ url: remote.url }), [ask("hello"), { text: "Done." }]);
    expect(refused.results[0]?.status).toBe("error");
    expect(refused.results[0]?.content).toContain(`Could not connect to the A2A agent at ${remote.url}`);
    expect(remote.executions).toEqual(["hello"]);
  });

  it("an agent that is not there is a tool error, and nothing is recorded as sent", async () => {
    const gone = await startRemoteAgent();
    await gone.close();
    const { results, events } = await run(delegateA2A({ url: gone.url }), [ask("anyone?"), { text: "Done." }]);
    expect(results[0]?.status).toBe("error");
    expect(results[0]?.content).toContain("Could not connect");
    expect(checkpoints(events)).toEqual([]);
  });

  it("bad options are a ConfigError at definition", () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ url: "not a url" }, /url must be an absolute http\(s\) URL/],
      [{ url: "ftp://agent.example.com" }, /url must be an absolute http\(s\) URL/],
      [{}, /url/],
      [{ url: "https://agent.example.com", token: "" }, /token/],
      [{ url: "https://agent.example.com", transports: ["GRPC"] }, /transports/],
      [{ url: "https://agent.example.com", timeoutMs: -1 }, /timeoutMs/],
      [{ url: "https://agent.example.com", tokn: "x" }, /tokn/],
      [{ url: "https://agent.example.com", name: "has spaces" }, /name/],
    ];
    for (const [options, message] of bad) {
      let thrown: unknown;
      try {
        delegateA2A(options as Parameters<typeof delegateA2A>[0]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(options)).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message, JSON.stringify(options)).toMatch(message);
    }
    const tool = delegateA2A({ url: "https://agent.example.com", name: "billing" });
    expect(tool).toMatchObject({ name: "billing", idempotent: true, untrustedOutput: true });
    expect(tool.jsonSchema).toMatchObject({ type: "object", required: ["message"] });
  });
});
