/**
 * A retried first `/v1/chat` request (the same chat id and first message, as a client sends it
 * again after a network drop) records the message once (issue 29, finding 11): the objective is
 * recorded under the message's id, so the retry finds it; two copies racing each other create
 * one task. Raw fetch over a real socket, with the body `useChat`'s transport sends.
 */
import { MemoryStore } from "@sema-agent/core";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";

let serving: Serving | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 1000 });
  serving = undefined;
});

async function start() {
  const store = new MemoryStore();
  const tokens = new MemoryTokenStore();
  const alice = (await tokens.create({ principal: "acme", actorId: "alice" })).token;
  serving = await serve({
    protocols: allProtocols(),
    store,
    tokens,
    agents: createAgentRegistry({ default: scriptedAgent([{ text: "Hello there." }, { text: "Again?" }]) }),
    port: 0,
    workers: { pollMs: 20 },
  });
  const url = serving.url;
  const headers = { authorization: `Bearer ${alice}`, "content-type": "application/json" };
  const first = (chatId: string) =>
    fetch(`${url}/v1/chat`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        id: chatId,
        trigger: "submit-message",
        messages: [{ id: "msg-first", role: "user", parts: [{ type: "text", text: "Hi there" }] }],
      }),
    });
  const transcript = async (chatId: string) =>
    (await (await fetch(`${url}/v1/chat/${chatId}/messages`, { headers })).json()) as Array<{
      id: string;
      role: string;
    }>;
  return { store, first, transcript };
}

/** The person's inputs recorded in the chat's log. */
async function userInputs(store: MemoryStore, chatId: string) {
  return (await store.read(chatId)).filter(
    (event) => event.type === "human_input" && event.source === "user" && event.delivery !== "applied",
  );
}

describe("a retried first chat request", () => {
  it("records the first message once, under its own id", async () => {
    const { store, first, transcript } = await start();
    const response = await first("chat-retry");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Hello there.");
    const retried = await first("chat-retry");
    expect(retried.status).toBe(200);
    await retried.text();
    const inputs = await userInputs(store, "chat-retry");
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({ inputId: "msg-first", carrier: "objective" });
    const users = (await transcript("chat-retry")).filter((message) => message.role === "user");
    expect(users.map((message) => message.id)).toEqual(["msg-first"]);
  });

  it("sent twice at once, creates one task and records the message once", async () => {
    const { store, first } = await start();
    const answers = await Promise.all([first("chat-race"), first("chat-race")]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    await Promise.all(answers.map((answer) => answer.text()));
    expect(await userInputs(store, "chat-race")).toHaveLength(1);
  });
});
