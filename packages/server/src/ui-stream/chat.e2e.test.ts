/**
 * `useChat`'s protocol end to end with the AI SDK's own client (`AbstractChat` +
 * `DefaultChatTransport`, as `@ai-sdk/react` runs it) against `serve()` on a real socket over a
 * SQLite file: a chat with a tool call, a steer typed mid-run and shown applied, an approval asked
 * for and answered with `addToolApprovalResponse`, the transcript after a reload equal to what was
 * streamed; then a server closed mid-turn and started again on the same file, where the client's
 * resume re-reads the turn from the log and sees it finish, nothing duplicated.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Agent, defineTool } from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import type { UIMessage } from "ai";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { TestChat } from "../test-support/ai-chat.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { writeTool } from "../test-support/api-fixture.ts";
import { until } from "../test-support/until.ts";

const dir = mkdtempSync(join(tmpdir(), "sema-chat-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => `found ${q}`,
});

/** Whether the model was shown `text` (a steer reaches it as a user message). */
const saw = (request: ModelRequest, text: string) => JSON.stringify(request.transcript).includes(text);

const LONG = "Looking around the notes first, one careful step at a time.";

function agent(): Agent {
  const model = new ScriptedModel(
    [
      {
        text: LONG,
        chunkSize: 2,
        deltaDelayMs: 40,
        toolCalls: [{ name: "lookup", input: { q: "style" }, callId: "c-look" }],
      },
      (request) => ({
        toolCalls: [
          {
            name: "write_note",
            input: { text: saw(request, "Please use tabs") ? "tabs" : "spaces" },
            callId: "c-write",
          },
        ],
      }),
      { text: "All done." },
      { text: "Anything else?" },
    ],
    { mode: "by-transcript" },
  );
  return { name: "default", model, tools: [lookup, writeTool] };
}

async function start(path: string): Promise<{ serving: Serving; store: SqliteStore; tokens: SqliteTokenStore }> {
  const store = new SqliteStore({ path });
  const tokens = new SqliteTokenStore({ path });
  const serving = await serve({
    protocols: allProtocols(),
    store,
    tokens,
    agents: createAgentRegistry({ default: agent() }),
    port: 0,
    workers: { pollMs: 50 },
  });
  return { serving, store, tokens };
}

const assistant = (chat: TestChat) => chat.messages.filter((message) => message.role === "assistant");
const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

/** Messages as JSON holds them (the client keeps keys set to undefined). */
const plain = (messages: readonly UIMessage[]) => JSON.parse(JSON.stringify(messages)) as UIMessage[];

describe("the AI SDK chat client against sema serve", () => {
  it("chats with a tool call, takes a steer mid-run, an approval response, and reloads to the same messages", async () => {
    const { serving, store, tokens } = await start(join(dir, "chat.db"));
    try {
      const token = (await tokens.create({ principal: "local", actorId: "dana", roles: ["approver"] })).token;
      const chat = new TestChat({ id: "chat-one", base: () => serving.url, token });

      const first = chat.sendMessage({ text: "Write our style note." });
      await until(() => textOf(assistant(chat)[0]).length > 4, "the first words streamed");
      expect(textOf(assistant(chat)[0]).length).toBeLessThan(LONG.length);
      // Typed during the run: a steer of the same task, not a second run.
      const steer = chat.sendMessage({ text: "Please use tabs." });
      await Promise.all([first, steer]);

      // The turn parks for the approval; the call carries Sema's digest.
      await until(() => chat.status === "ready", "the turn to stop for the approval");
      const reply = assistant(chat).at(-1);
      const writePart = reply?.parts.find((part) => part.type === "tool-write_note");
      expect(writePart).toMatchObject({ state: "approval-requested", input: { text: "tabs" } });
      const approval = (writePart as { approval: { id: string; signature: string } }).approval;
      expect(approval.signature).toMatch(/^[0-9a-f]{64}$/);
      expect(reply?.parts).toContainEqual(
        expect.objectContaining({
          type: "data-sema-steer",
          data: expect.objectContaining({ status: "applied", from: "dana" }),
        }),
      );
      expect(reply?.parts).toContainEqual(
        expect.objectContaining({ type: "steering-message", parts: [{ type: "text", text: "Please use tabs." }] }),
      );

      // Answered in the client, then sent (the steer came after the assistant message, so it is
      // not the last one and sendAutomaticallyWhen's helper does not fire); the call runs, the turn ends.
      await chat.addToolApprovalResponse({ id: approval.id, approved: true });
      await chat.sendMessage();
      await until(() => textOf(assistant(chat).at(-1)).endsWith("All done."), "the turn to finish");
      await until(() => chat.status === "ready", "the stream to end");

      const final = assistant(chat).at(-1);
      expect(assistant(chat)).toHaveLength(1);
      expect(textOf(final)).toBe(`${LONG}All done.`);
      expect(final?.parts.filter((part) => part.type === "tool-lookup")).toEqual([
        expect.objectContaining({ state: "output-available", output: "found style" }),
      ]);
      expect(final?.parts.filter((part) => part.type === "tool-write_note")).toEqual([
        expect.objectContaining({
          state: "output-available",
          output: "wrote tabs",
          approval: expect.objectContaining({ approved: true }),
        }),
      ]);
      expect(chat.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);

      // One task, one objective and one steer, the approval decided by dana.
      const log = await store.read("chat-one");
      expect(log.filter((event) => event.type === "human_input" && event.delivery !== "applied")).toHaveLength(2);
      expect(log.find((event) => event.type === "approval_decided")).toMatchObject({ actor: { id: "dana" } });

      // A reload: the transcript is what was streamed (the objective's id is the task's own).
      const response = await fetch(`${serving.url}/v1/chat/chat-one/messages`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      const reloaded = (await response.json()) as UIMessage[];
      const streamed = plain(chat.messages);
      const [firstUser] = streamed;
      if (firstUser !== undefined) firstUser.id = reloaded[0]?.id ?? "";
      expect(reloaded).toEqual(streamed);

      // Nothing runs now: the resume GET says so.
      const resumed = await fetch(`${serving.url}/v1/chat/chat-one/stream`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(resumed.status).toBe(204);
    } finally {
      await serving.close({ deadlineMs: 2000 });
      await store.close();
      await tokens.close();
    }
  }, 30_000);

  it("resumes a turn after the server is closed mid-turn and started again on the same file", async () => {
    const path = join(dir, "restart.db");
    let running = await start(path);
    const token = (await running.tokens.create({ principal: "local", actorId: "dana", roles: ["approver"] })).token;
    const chat = new TestChat({ id: "chat-two", base: () => running.serving.url, token });
    try {
      const sent = chat.sendMessage({ text: "Write our style note." }).catch(() => undefined);
      await until(() => textOf(assistant(chat)[0]).length > 4, "the first words streamed");
      // Stopped mid-turn: the leg parks for the next host; the client's stream is cut.
      await running.serving.close({ deadlineMs: 2000 });
      await running.store.close();
      await running.tokens.close();
      await sent;
      running = await start(path);

      // What `useChat({ resume: true })` does on a reload: GET …/stream, the turn re-sent from the log.
      await chat.resumeStream();
      await until(
        () =>
          chat.status === "ready" &&
          assistant(chat)
            .at(-1)
            ?.parts.some((part) => part.type === "tool-write_note") === true,
        "the resumed turn to reach the approval",
      );
      const reply = assistant(chat).at(-1);
      expect(assistant(chat)).toHaveLength(1);
      expect(textOf(reply)).toBe(LONG);
      expect(reply?.parts.filter((part) => part.type === "tool-lookup")).toHaveLength(1);
      expect(reply?.parts).toContainEqual(
        expect.objectContaining({ type: "data-sema-parked", data: { reason: "shutdown" } }),
      );

      const response = await fetch(`${running.serving.url}/v1/chat/chat-two/messages`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const reloaded = (await response.json()) as UIMessage[];
      const streamed = plain(chat.messages);
      if (streamed[0] !== undefined) streamed[0].id = reloaded[0]?.id ?? "";
      expect(reloaded).toEqual(streamed);
    } finally {
      await running.serving.close({ deadlineMs: 2000 });
      await running.store.close();
      await running.tokens.close();
    }
  }, 30_000);

  it("a disconnect leaves the task running, a denial reaches the model with its decider, a follow-up opens a new turn, an interrupt ends the stream with abort", async () => {
    const { serving, store, tokens } = await start(join(dir, "control.db"));
    try {
      const token = (await tokens.create({ principal: "local", actorId: "dana", roles: ["approver"] })).token;
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const chat = new TestChat({ id: "chat-three", base: () => serving.url, token });
      const sent = chat.sendMessage({ text: "Write our style note." });
      await until(() => textOf(assistant(chat)[0]).length > 4, "the first words streamed");
      await chat.stop();
      await sent;
      // The client went away; the task did not: it runs on to the approval.
      await until(async () => (await store.getTask("chat-three")).summary.parkedReason === "approval", "the park");
      expect((await store.read("chat-three")).some((event) => event.type === "interrupt_requested")).toBe(false);

      // A reload: the transcript has the call waiting; deny it from there.
      const messages = (await (
        await fetch(`${serving.url}/v1/chat/chat-three/messages`, { headers })
      ).json()) as UIMessage[];
      const reloaded = new TestChat({ id: "chat-three", base: () => serving.url, token, messages });
      const asked = assistant(reloaded)[0]?.parts.find((part) => part.type === "tool-write_note") as
        | { approval: { id: string } }
        | undefined;
      await reloaded.addToolApprovalResponse({ id: asked?.approval.id ?? "", approved: false, reason: "not now" });
      await until(() => textOf(assistant(reloaded)[0]).endsWith("All done."), "the turn after the denial");
      expect(assistant(reloaded)[0]?.parts.find((part) => part.type === "tool-write_note")).toMatchObject({
        state: "output-denied",
      });
      const denied = (await store.read("chat-three")).find(
        (event) => event.type === "tool_result" && event.name === "write_note",
      );
      expect(denied).toMatchObject({ status: "denied", content: expect.stringMatching(/dana[\s\S]*not now/) });

      // After the task finished, a message continues it as a new turn.
      await until(() => reloaded.status === "ready", "the stream to end");
      await reloaded.sendMessage({ text: "One more thing." });
      await until(() => textOf(assistant(reloaded).at(-1)) === "Anything else?", "the follow-up's answer");
      expect(reloaded.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect(new Set(assistant(reloaded).map((message) => message.id)).size).toBe(2);

      // An explicit stop: the interrupt is in the log with who asked, and the stream says abort.
      const response = await fetch(`${serving.url}/v1/chat`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          id: "chat-four",
          messages: [{ id: "m-1", role: "user", parts: [{ type: "text", text: "Write our style note." }] }],
          trigger: "submit-message",
        }),
      });
      expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
      const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
      let wire = "";
      while (!wire.includes('"text-delta"')) wire += (await reader.read()).value ?? "";
      const stopped = await fetch(`${serving.url}/v1/tasks/chat-four/interrupt`, { method: "POST", headers });
      expect(stopped.status).toBe(202);
      for (let read = await reader.read(); !read.done; read = await reader.read()) wire += read.value;
      expect(wire).toMatch(/data: \{"type":"abort","reason":"interrupted"\}\n\ndata: \[DONE\]\n\n$/);
      expect((await store.read("chat-four")).find((event) => event.type === "interrupt_requested")).toMatchObject({
        actor: { id: "dana" },
      });
    } finally {
      await serving.close({ deadlineMs: 2000 });
      await store.close();
      await tokens.close();
    }
  }, 30_000);
});
