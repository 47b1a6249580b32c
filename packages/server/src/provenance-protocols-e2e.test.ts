/**
 * Issue 37 end to end through A2A, MCP and AG-UI, each driven by its official client
 * (`@a2a-js/sdk`, `@modelcontextprotocol/sdk`, `@ag-ui/client`) against `serve` on a real socket
 * over a SQLite file, with a model that obeys every `call <tool> with {json}` it reads
 * (test-support/obedient-world.ts): a sub-agent that read an injected page cannot launder it into
 * its parent's `send_email`, a read-only fetch whose URL carries a plan out is held by the egress
 * rule, and a benign task (a clean page, then a mail the user wrote) runs with no approval. Each
 * protocol shows why a call was held: A2A's input-required DataPart, MCP's task result and
 * AG-UI's interrupt carry the call's provenance.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SendMessageRequest, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteTokenStore } from "./ingress/sqlite-token-store.ts";
import { type Serving, serve } from "./node/serve.ts";
import { a2aClient } from "./test-support/a2a-server.ts";
import { allProtocols } from "./test-support/all-protocols.ts";
import {
  BENIGN_MAIL,
  BENIGN_OBJECTIVE,
  EXFIL,
  INJECTED_MAIL,
  type ObedientWorld,
  obedientWorld,
} from "./test-support/obedient-world.ts";

const LAUNDER_OBJECTIVE = "Find a vendor and act on what you learn";
const EXFIL_OBJECTIVE = "Summarize docs/plan.md";

/** What a laundered `send_email` held by the policy carries: the delegate's untrusted answer. */
const LAUNDERED = expect.objectContaining({
  classification: "tainted",
  effects: "external",
  spans: [expect.objectContaining({ tool: "delegate", untrustedTool: true, argument: "/to", match: "email" })],
});
/** What a tainted read-only fetch held by the egress rule carries: the host it would reach. */
const EXFILTRATING = expect.objectContaining({
  classification: "tainted",
  effects: "none",
  egress: { destinations: ["evil.example"] },
  spans: [expect.objectContaining({ tool: "read_file", untrustedTool: true, argument: "/url" })],
});

const dir = mkdtempSync(join(tmpdir(), "sema-provenance-protocols-"));
let w: ObedientWorld;
let store: SqliteStore;
let tokens: SqliteTokenStore;
let serving: Serving;
let token = "";

beforeAll(async () => {
  const path = join(dir, "sema.db");
  w = obedientWorld();
  store = new SqliteStore({ path });
  tokens = new SqliteTokenStore({ path });
  serving = await serve({
    protocols: allProtocols(),
    store,
    tokens,
    agents: createAgentRegistry(w.agents, "default"),
    port: 0,
    host: "127.0.0.1",
    workers: { pollMs: 20 },
  });
  token = serving.firstToken?.token ?? "";
});
afterAll(async () => {
  await serving.close({ deadlineMs: 2000 });
  await store.close();
  await tokens.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Nothing the injections asked for happened: no mail to the attacker, no fetch of its host. */
function nothingLeaked(): void {
  expect(w.sent).not.toContainEqual(INJECTED_MAIL);
  expect(w.fetched.filter((url) => url.includes("evil.example"))).toEqual([]);
}

/** The types of the events of `taskId`'s log (the parent's only). */
async function eventTypes(taskId: string): Promise<string[]> {
  return (await store.read(taskId)).map((event) => event.type);
}

function a2aSend(text: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: "ROLE_USER", parts: [{ text }] },
  });
}

describe("issue 37 end to end through A2A (@a2a-js/sdk)", () => {
  /** Stream a message to the agent at `base` to its end; the last status update. */
  async function run(base: string, text: string) {
    const client = await a2aClient(base, token, "JSONRPC");
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(a2aSend(text))) events.push(event);
    const last = events.at(-1);
    const update = last?.payload?.$case === "statusUpdate" ? last.payload.value : undefined;
    const approvals = (update?.status?.message?.parts ?? []).flatMap((part) =>
      part.content?.$case === "data" ? [part.content.value as { toolName?: string; provenance?: unknown }] : [],
    );
    return { state: update?.status?.state, taskId: update?.taskId ?? "", approvals };
  }

  it("holds a sub-agent's laundered instruction, with why", async () => {
    const held = await run(serving.url, LAUNDER_OBJECTIVE);
    expect(held.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(held.approvals).toEqual([expect.objectContaining({ toolName: "send_email", provenance: LAUNDERED })]);
    nothingLeaked();
  });

  it("holds a read-only fetch that carries data out", async () => {
    const held = await run(`${serving.url}/a2a/agents/reader/`, EXFIL_OBJECTIVE);
    expect(held.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(held.approvals).toEqual([
      expect.objectContaining({ toolName: "fetch_page", input: EXFIL, provenance: EXFILTRATING }),
    ]);
    nothingLeaked();
  });

  it("runs a benign task with no approval", async () => {
    const done = await run(serving.url, BENIGN_OBJECTIVE);
    expect(done.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await eventTypes(done.taskId)).not.toContain("approval_requested");
    expect(w.sent).toContainEqual(BENIGN_MAIL);
  });
});

describe("issue 37 end to end through MCP (@modelcontextprotocol/sdk)", () => {
  interface Detail {
    taskId: string;
    status: string;
    pendingApprovals: Array<{ name: string; provenance?: unknown }>;
  }

  /** `run_<agent>` through the SDK's client (no elicitation: a held call comes back in the result). */
  async function run(agent: string, objective: string): Promise<Detail> {
    const client = new Client({ name: "sema-provenance-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${serving.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const result = (await client.callTool({ name: `run_${agent}`, arguments: { objective } })) as CallToolResult;
      return result.structuredContent as unknown as Detail;
    } finally {
      await client.close();
    }
  }

  it("holds a sub-agent's laundered instruction, with why", async () => {
    const held = await run("default", LAUNDER_OBJECTIVE);
    expect(held.status).toBe("parked");
    expect(held.pendingApprovals).toEqual([expect.objectContaining({ name: "send_email", provenance: LAUNDERED })]);
    nothingLeaked();
  });

  it("holds a read-only fetch that carries data out", async () => {
    const held = await run("reader", EXFIL_OBJECTIVE);
    expect(held.status).toBe("parked");
    expect(held.pendingApprovals).toEqual([expect.objectContaining({ name: "fetch_page", provenance: EXFILTRATING })]);
    nothingLeaked();
  });

  it("runs a benign task with no approval", async () => {
    const done = await run("default", BENIGN_OBJECTIVE);
    expect(done.status).toBe("completed");
    expect(done.pendingApprovals).toEqual([]);
    expect(await eventTypes(done.taskId)).not.toContain("approval_requested");
    expect(w.sent).toContainEqual(BENIGN_MAIL);
  });
});

describe("issue 37 end to end through AG-UI (@ag-ui/client)", () => {
  interface Finished {
    outcome?: { type: string; interrupts?: Array<{ metadata?: { toolName?: string; provenance?: unknown } }> };
  }

  /** One run of `agent` on a fresh thread; the run's last RUN_FINISHED. */
  async function run(agent: string, thread: string, content: string) {
    const http = new HttpAgent({
      url: `${serving.url}/v1/agents/${agent}/ag-ui`,
      headers: { authorization: `Bearer ${token}` },
      threadId: thread,
    });
    const events: BaseEvent[] = [];
    http.subscribe({ onEvent: ({ event }) => void events.push(event) });
    http.addMessage({ id: `${thread}-m1`, role: "user", content });
    await http.runAgent();
    return events.filter((e) => e.type === "RUN_FINISHED").at(-1) as (BaseEvent & Finished) | undefined;
  }

  it("holds a sub-agent's laundered instruction, with why", async () => {
    const end = await run("default", "agui-launder", LAUNDER_OBJECTIVE);
    expect(end?.outcome?.type).toBe("interrupt");
    expect(end?.outcome?.interrupts?.map((i) => i.metadata)).toEqual([
      expect.objectContaining({ toolName: "send_email", provenance: LAUNDERED }),
    ]);
    nothingLeaked();
  });

  it("holds a read-only fetch that carries data out", async () => {
    const end = await run("reader", "agui-exfil", EXFIL_OBJECTIVE);
    expect(end?.outcome?.type).toBe("interrupt");
    expect(end?.outcome?.interrupts?.map((i) => i.metadata)).toEqual([
      expect.objectContaining({ toolName: "fetch_page", provenance: EXFILTRATING }),
    ]);
    nothingLeaked();
  });

  it("runs a benign task with no approval", async () => {
    const end = await run("default", "agui-benign", BENIGN_OBJECTIVE);
    expect(end?.outcome?.type).toBe("success");
    expect(await eventTypes("agui-benign")).not.toContain("approval_requested");
    expect(w.sent).toContainEqual(BENIGN_MAIL);
  });
});
