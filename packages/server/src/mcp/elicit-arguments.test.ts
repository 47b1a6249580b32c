/**
 * An elicitation shows every argument of the call it asks about (issue 29, finding 10): a first
 * argument of 100,000 characters used to fill the 2,000 shown and hide `path`. Over a real socket
 * with the SDK's own client; and the prompt itself, for inputs that are not objects.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, MemoryStore } from "@sema-agent/core";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";
import { ARG_SHOWN_CHARS, approvalPrompt } from "./approval-prompt.ts";

const saveFile = defineTool({
  name: "save_file",
  description: "Save a file (needs approval)",
  inputSchema: z.object({ content: z.string(), path: z.string(), mode: z.number() }),
  needsApproval: true,
  execute: ({ path }) => `saved ${path}`,
});
const LONG = "A".repeat(100_000);
const saver = scriptedAgent(
  [
    {
      toolCalls: [
        { name: "save_file", input: { content: LONG, path: "/home/me/.ssh/authorized_keys", mode: 384 }, callId: "c1" },
      ],
    },
    { text: "Saved." },
  ],
  "saver",
);
saver.tools = [saveFile];

let serving: Serving | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => undefined);
  await serving?.close({ deadlineMs: 1000 });
  serving = undefined;
  client = undefined;
});

describe("an MCP elicitation", () => {
  it("shows every argument, each cut on its own with how much was cut, and the digest", async () => {
    const store = new MemoryStore();
    const tokens = new MemoryTokenStore();
    const bob = await tokens.create({ principal: "acme", actorId: "bob", roles: ["approver"] });
    serving = await serve({
      protocols: allProtocols(),
      store,
      tokens,
      agents: createAgentRegistry({ saver }),
      port: 0,
      workers: { pollMs: 20 },
    });
    client = new Client({ name: "elicit-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "decline" };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${serving.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bob.token}` } },
      }),
    );
    await client.callTool({ name: "run_saver", arguments: { objective: "Save my key" } });
    expect(asked).toHaveLength(1);
    const message = asked[0] ?? "";
    expect(message).toContain('- "path": "/home/me/.ssh/authorized_keys"');
    expect(message).toContain('- "mode": 384');
    expect(message).toContain(`- "content": "${"A".repeat(ARG_SHOWN_CHARS - 1)}… (cut: 99,502 more characters)`);
    const [task] = (await store.listTasks({ principal: "acme" })).tasks;
    const requested = (await store.read(task?.taskId ?? "")).find((event) => event.type === "approval_requested");
    expect(message).toContain(`Digest ${requested?.type === "approval_requested" ? requested.digest : "?"}`);
    expect(message.length).toBeLessThan(2000);
  });
});

describe("approvalPrompt", () => {
  const digest = "d".repeat(64);
  it("writes names and values as JSON, so neither can fake a line", () => {
    const prompt = approvalPrompt("t1", "send", JSON.stringify({ "to\n- path": "x", body: "a\nb" }), digest);
    expect(prompt.split("\n")).toEqual([
      "Task t1 wants to call send with 2 arguments:",
      '- "to\\n- path": "x"',
      '- "body": "a\\nb"',
      `Digest ${digest}. Approve it?`,
    ]);
  });

  it("cuts an input that is not an object as a whole, saying how much", () => {
    const prompt = approvalPrompt("t1", "echo", JSON.stringify(["x".repeat(3000)]), digest);
    expect(prompt).toContain("… (cut: 1,004 more characters)");
    expect(approvalPrompt("t1", "noop", "{}", digest)).toContain("with no arguments.");
  });

  it("never cuts inside a surrogate pair", () => {
    const prompt = approvalPrompt(
      "t1",
      "emoji",
      JSON.stringify({ a: `${"x".repeat(ARG_SHOWN_CHARS - 2)}😀😀` }),
      digest,
    );
    expect(prompt).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
