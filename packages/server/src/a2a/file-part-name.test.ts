/**
 * Issue 29, finding 11d: an A2A file part's name is capped like `/v1`'s (255 characters): a
 * 100,000-character name is refused (400 on REST, invalid params on JSON-RPC) and nothing is
 * stored; a name of exactly 255 is taken. Over a real socket with the official client.
 */
import { SendMessageRequest } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { a2aClient, a2aWorld, type Transport } from "../test-support/a2a-server.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";

const world = a2aWorld();
afterEach(() => world.stop());

const message = (filename: string) => ({
  message: {
    messageId: `m-${filename.length}`,
    role: "ROLE_USER",
    parts: [
      { text: "Read this." },
      { raw: Buffer.from("hello").toString("base64"), mediaType: "text/plain", filename },
    ],
  },
});

describe.each<Transport>(["JSONRPC", "HTTP+JSON"])("an A2A file part's name over %s", (transport) => {
  it("is refused over 255 characters, as on /v1, and nothing is stored", async () => {
    const server = await world.start({ default: scriptedAgent([{ text: "read" }]) });
    const token = server.serving.firstToken?.token ?? "";
    const client = await a2aClient(server.serving.url, token, transport);
    const tasks = async () => (await server?.store.listTasks({ principal: "local" }))?.tasks.length;
    await expect(client.sendMessage(SendMessageRequest.fromJSON(message("n".repeat(100_000))))).rejects.toThrow(
      /filename is 100000 characters, over the limit of 255/,
    );
    await expect(client.sendMessage(SendMessageRequest.fromJSON(message("n".repeat(256))))).rejects.toThrow(/filename/);
    expect(await tasks()).toBe(0);
    if (transport === "HTTP+JSON") {
      const response = await fetch(`${server.serving.url}/a2a/v1/message:send`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(message("n".repeat(100_000))),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
    }
    // At the cap, the file is taken.
    await client.sendMessage(SendMessageRequest.fromJSON(message("n".repeat(255))));
    expect(await tasks()).toBe(1);
  });
});
