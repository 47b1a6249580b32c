/**
 * `@ag-ui/client`'s `HttpAgent` against `sema serve` on a real socket, with scripted models: a
 * run with a tool call, an approval as an interrupt resumed through `resume` (a wrong digest
 * refused), a frontend tool round trip, and a steer sent by a second client during a run that
 * reaches the model with its label.
 */
import { type BaseEvent, HttpAgent, type Message } from "@ag-ui/client";
import { defineTool, MemoryStore, type StoredEvent } from "@sema-agent/core";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { scriptedAgent, writeTool } from "../test-support/api-fixture.ts";
import { until } from "../test-support/until.ts";

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => `found ${q}`,
});

const notes = scriptedAgent(
  [
    { text: "Looking it up.", toolCalls: [{ name: "lookup", input: { q: "style" }, callId: "call-look" }] },
    { toolCalls: [{ name: "write_note", input: { text: "tabs" }, callId: "call-write" }] },
    { text: "All done." },
  ],
  "notes",
);
notes.tools = [lookup, writeTool];
const painter = scriptedAgent(
  [{ toolCalls: [{ name: "pick_color", input: { hint: "warm" }, callId: "call-pick" }] }, { text: "Painted it red." }],
  "painter",
);
const talker = scriptedAgent(
  [
    { text: "Writing the notes with spaces, as usual.", chunkSize: 2, deltaDelayMs: 20 },
    { text: "Switched to tabs." },
    { text: "Summary added." },
  ],
  "talker",
);

const store = new MemoryStore();
const tokens = new MemoryTokenStore();
let serving: Serving;
let alice = "";

beforeAll(async () => {
  alice = (await tokens.create({ principal: "acme", actorId: "alice", roles: ["approver"] })).token;
  serving = await serve({
    protocols: allProtocols(),
    store,
    tokens,
    agents: createAgentRegistry({ notes, painter, talker }, "notes"),
    port: 0,
    workers: { pollMs: 20 },
  });
});
afterAll(async () => {
  await serving.close({ deadlineMs: 1000 });
});

/** A client of `agent` on `threadId`, recording every event it receives. */
function client(agent: string, threadId: string) {
  const http = new HttpAgent({
    url: `${serving.url}/v1/agents/${agent}/ag-ui`,
    headers: { authorization: `Bearer ${alice}` },
    threadId,
  });
  const events: BaseEvent[] = [];
  http.subscribe({ onEvent: ({ event }) => void events.push(event) });
  return { http, events };
}

const user = (id: string, content: string): Message => ({ id, role: "user", content });
const types = (events: BaseEvent[]) => events.map((event) => event.type);
const finished = (events: BaseEvent[]) =>
  events.filter((e) => e.type === "RUN_FINISHED").at(-1) as BaseEvent & {
    outcome?: {
      type: string;
      interrupts?: Array<{ id: string; metadata?: { digest?: string } }>;
      pendingToolCallIds?: string[];
    };
  };

describe("AG-UI's HttpAgent against sema serve", () => {
  it("runs a tool call, ends on an interrupt for approval, refuses a wrong digest, and resumes", async () => {
    const { http, events } = client("notes", "thread-notes");
    http.addMessage(user("m1", "Tidy the notes"));
    await http.runAgent();
    expect(types(events)[0]).toBe("RUN_STARTED");
    const text = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => (e as { delta?: string }).delta);
    expect(text.join("")).toBe("Looking it up.");
    expect(
      events.filter((e) => e.type === "TOOL_CALL_START").map((e) => (e as { toolCallName?: string }).toolCallName),
    ).toEqual(["lookup", "write_note"]);
    expect(events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
      toolCallId: "call-look",
      content: "found style",
    });
    const end = finished(events);
    expect(end.outcome?.type).toBe("interrupt");
    const interrupt = end.outcome?.interrupts?.[0];
    expect(interrupt).toMatchObject({ id: "call-write", reason: "tool_approval", toolCallId: "call-write" });
    const digest = interrupt?.metadata?.digest ?? "";
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(http.pendingInterrupts.map((pending) => pending.id)).toEqual(["call-write"]);
    // The client's conversation holds the turn's text and both calls.
    const assistant = http.messages.filter((m) => m.role === "assistant");
    expect(assistant.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []))).toEqual([
      "call-look",
      "call-write",
    ]);

    const before = (await store.read("thread-notes")).length;
    // The client logs the failed run before it rethrows.
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await expect(
      http.runAgent({
        resume: [
          { interruptId: "call-write", status: "resolved", payload: { approved: true, digest: "0".repeat(64) } },
        ],
      }),
    ).rejects.toMatchObject({ status: 409, payload: { error: { code: "DigestMismatch" } } });
    logged.mockRestore();
    expect((await store.read("thread-notes")).length).toBe(before);

    events.length = 0;
    await http.runAgent({
      resume: [{ interruptId: "call-write", status: "resolved", payload: { approved: true, digest } }],
    });
    expect(
      events.find((e) => e.type === "CUSTOM" && (e as { name?: string }).name === "sema.approval_decided"),
    ).toMatchObject({ value: { callId: "call-write", decision: "approve" } });
    expect(events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
      toolCallId: "call-write",
      content: "wrote tabs",
    });
    expect(
      events
        .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
        .map((e) => (e as { delta?: string }).delta)
        .join(""),
    ).toBe("All done.");
    expect(finished(events)).toMatchObject({ outcome: { type: "success" }, result: "All done." });
    expect((await store.getTask("thread-notes")).summary.status).toBe("completed");

    // A reloaded page (a client with no messages) is given the whole conversation from the log.
    const reloaded = client("notes", "thread-notes");
    await reloaded.http.runAgent();
    expect(types(reloaded.events)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    const shown = reloaded.http.messages.map((m) => ({ id: m.id, role: m.role }));
    const streamed = http.messages.filter((m) => m.role === "assistant").map((m) => ({ id: m.id, role: m.role }));
    expect(shown.filter((m) => m.role === "assistant")).toEqual(streamed);
    expect(reloaded.http.messages[0]).toMatchObject({
      role: "user",
      content: expect.stringContaining("Tidy the notes"),
    });
    expect(
      reloaded.http.messages.filter((m) => m.role === "tool").map((m) => (m.role === "tool" ? m.toolCallId : "")),
    ).toEqual(["call-look", "call-write"]);
  });

  it("offers a frontend tool; a call to it ends the run for the client, whose result the next run records", async () => {
    const { http, events } = client("painter", "thread-paint");
    const tools = [
      {
        name: "pick_color",
        description: "Ask the person for a color",
        parameters: { type: "object", properties: { hint: { type: "string" } } },
      },
    ];
    http.addMessage(user("p1", "Paint the banner"));
    await http.runAgent({ tools });
    expect(events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({
      toolCallId: "call-pick",
      toolCallName: "pick_color",
    });
    expect(events.find((e) => e.type === "TOOL_CALL_ARGS")).toMatchObject({ delta: '{"hint":"warm"}' });
    expect(finished(events).outcome).toEqual({ type: "success", pendingToolCallIds: ["call-pick"] });
    expect(painter.model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["write_note", "pick_color"]);

    events.length = 0;
    http.addMessage({ id: "r1", role: "tool", toolCallId: "call-pick", content: '{"color":"red"}' });
    await http.runAgent({ tools });
    // Not echoed back: the client has it already.
    expect(events.some((e) => e.type === "TOOL_CALL_RESULT")).toBe(false);
    expect(
      events
        .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
        .map((e) => (e as { delta?: string }).delta)
        .join(""),
    ).toBe("Painted it red.");
    expect(finished(events).outcome).toMatchObject({ type: "success" });
    const result = (await store.read("thread-paint")).find(
      (e): e is StoredEvent & { type: "tool_result" } => e.type === "tool_result",
    );
    expect(result).toMatchObject({ callId: "call-pick", status: "ok", output: '{"color":"red"}' });
    const last = painter.model.requests.at(-1)?.transcript.find((e) => e.role === "tool");
    expect(last?.role === "tool" ? last.content : "").toContain('{"color":"red"}');
  });

  it("denies a call whose interrupt is cancelled, and answers a frontend call the person talked past", async () => {
    const { http, events } = client("notes", "thread-deny");
    http.addMessage(user("d1", "Tidy the notes"));
    await http.runAgent();
    expect(finished(events).outcome?.type).toBe("interrupt");
    await http.runAgent({ resume: [{ interruptId: "call-write", status: "cancelled" }] });
    const denied = (await store.read("thread-deny")).find(
      (e): e is StoredEvent & { type: "tool_result" } => e.type === "tool_result" && e.callId === "call-write",
    );
    // The denial reaches the model with who decided.
    expect(denied).toMatchObject({ status: "denied", content: expect.stringContaining('denied by [from "alice"]') });
    expect((await store.getTask("thread-deny")).summary.status).toBe("completed");

    const paint = client("painter", "thread-talked-past");
    const tools = [{ name: "pick_color", description: "Ask the person for a color" }];
    paint.http.addMessage(user("q1", "Paint the banner"));
    await paint.http.runAgent({ tools });
    expect(finished(paint.events).outcome).toEqual({ type: "success", pendingToolCallIds: ["call-pick"] });
    paint.http.addMessage(user("q2", "Never mind the color"));
    await paint.http.runAgent({ tools });
    const answered = (await store.read("thread-talked-past")).find(
      (e): e is StoredEvent & { type: "tool_result" } => e.type === "tool_result",
    );
    expect(answered).toMatchObject({
      callId: "call-pick",
      status: "error",
      content: expect.stringContaining("sent a new message"),
    });
    expect((await store.getTask("thread-talked-past")).summary.status).toBe("completed");
  });

  it("takes a message sent during a run as a steer, which reaches the model with its label", async () => {
    const first = client("talker", "thread-talk");
    first.http.addMessage(user("t1", "Write the notes"));
    const running = first.http.runAgent();
    await until(() => first.events.some((e) => e.type === "TEXT_MESSAGE_CONTENT"));

    // A second tab on the same thread: its message is a steer, not a second run.
    const second = client("talker", "thread-talk");
    second.http.addMessage(user("t2", "Use tabs, not spaces"));
    await second.http.runAgent();
    expect(types(second.events)).toEqual(["RUN_STARTED", "CUSTOM", "RUN_FINISHED"]);
    expect(second.events[1]).toMatchObject({ name: "sema.steer_received", value: { inputId: "ag-ui:t2" } });

    await running;
    expect(
      first.events.some((e) => e.type === "CUSTOM" && (e as { name?: string }).name === "sema.steer_applied"),
    ).toBe(true);
    const said = first.events
      .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
      .map((e) => (e as { delta?: string }).delta)
      .join("");
    expect(said).toBe("Writing the notes with spaces, as usual.Switched to tabs.");
    expect(finished(first.events)).toMatchObject({ outcome: { type: "success" }, result: "Switched to tabs." });
    const steer = talker.model.requests[1]?.transcript.find((e) => e.role === "user" && e.content.includes("Use tabs"));
    expect(steer?.role === "user" ? steer.content : "").toContain('[from "alice"]');

    // The second tab sends its message again (no answer followed it there): it is not recorded twice.
    second.events.length = 0;
    await second.http.runAgent();
    expect(types(second.events)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    const steers = (await store.read("thread-talk")).filter(
      (e) => e.type === "human_input" && e.inputId === "ag-ui:t2" && e.delivery === "received",
    );
    expect(steers).toHaveLength(1);

    // A message after the task finished continues it.
    first.events.length = 0;
    first.http.addMessage(user("t3", "Add a summary"));
    await first.http.runAgent();
    expect(finished(first.events)).toMatchObject({ outcome: { type: "success" }, result: "Summary added." });
    expect(talker.model.requests).toHaveLength(3);
  });
});
