/**
 * The chat routes recognise a Sema error by its brand, not its class (issue 29, from reading the
 * code): with a store built on another installed copy of core, whose `TaskNotFound` is not an
 * instance of this copy's class, a new chat is still created and an unknown chat's resume is
 * still "nothing to resume". Raw fetch over a real socket.
 */
import { MemoryStore, type Store } from "@sema-agent/core";
import * as mine from "@sema-agent/core/protocol";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";

/** `inner`, whose `getTask` throws the other copy's `TaskNotFoundError` for an unknown id. */
function foreignStore(inner: MemoryStore, other: typeof mine): Store {
  return new Proxy(inner, {
    get(target, key) {
      if (key === "getTask")
        return async (taskId: string) => {
          try {
            return await target.getTask(taskId);
          } catch (error) {
            if (mine.isSemaError(error, "TaskNotFound")) throw new other.TaskNotFoundError(taskId);
            throw error;
          }
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

let serving: Serving | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 1000 });
  serving = undefined;
});

describe("chat routes with another copy of core's errors", () => {
  it("create a new chat and answer an unknown chat's resume with 204", async () => {
    // A query string makes the loader treat it as another module, with its own classes.
    const secondCopy = "../../../core/src/protocol/errors.ts?second-copy";
    const other = (await import(secondCopy)) as typeof mine;
    const probe = new other.TaskNotFoundError("x");
    expect(probe instanceof mine.TaskNotFoundError).toBe(false);
    expect(mine.isSemaError(probe, "TaskNotFound")).toBe(true);

    const inner = new MemoryStore();
    const tokens = new MemoryTokenStore();
    const alice = (await tokens.create({ principal: "acme", actorId: "alice" })).token;
    serving = await serve({
      protocols: allProtocols(),
      store: foreignStore(inner, other),
      tokens,
      agents: createAgentRegistry({ default: scriptedAgent([{ text: "Hello there." }]) }),
      port: 0,
      workers: { pollMs: 20 },
    });
    const headers = { authorization: `Bearer ${alice}`, "content-type": "application/json" };
    const response = await fetch(`${serving.url}/v1/chat`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        id: "chat-foreign",
        trigger: "submit-message",
        messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Hi" }] }],
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Hello there.");
    expect((await inner.getTask("chat-foreign")).principal).toBe("acme");
    const resume = await fetch(`${serving.url}/v1/chat/chat-unknown/stream`, { headers });
    expect(resume.status).toBe(204);
  });
});
