// `sema mcp` as a real process, driven over stdio by the MCP SDK's own Client: tools listed, a run
// to completion with progress, a steer reaching the running model, an approval seen and decided
// (a wrong digest refused), a task's resources, and a token's principal that sees none of
// another principal's tasks.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo } from "./test-support/capture-io.ts";

const NODE_ENTRY = fileURLToPath(new URL("./test-support/sema-node.ts", import.meta.url));

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

interface Detail {
  taskId: string;
  status: string;
  result?: string;
  pendingApprovals: { callId: string; digest: string; name: string }[];
}

function workdir(turns: unknown[]): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-mcp-"));
  writeFileSync(join(dir, "turns.json"), JSON.stringify({ turns }));
  return dir;
}

/** `sema mcp` in `dir`, connected; its stderr is collected in `log`. */
async function connect(dir: string, args: string[] = [], env: Record<string, string> = {}, cwd = dir) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [NODE_ENTRY, "mcp", "--model", `script:${join(dir, "turns.json")}`, ...args],
    cwd,
    env: { ...(process.env as Record<string, string>), SEMA_STORE_URL: "", SEMA_DB: "", SEMA_TOKEN: "", ...env },
    stderr: "pipe",
  });
  const log = { text: "" };
  transport.stderr?.on("data", (chunk: Buffer) => (log.text += chunk.toString()));
  const client = new Client({ name: "sema-mcp-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  // Every message as the transport hands it to the client, in the order the server sent them: the
  // SDK's client runs notification handlers a microtask later but settles a response at once, so
  // progress that arrives in one read with the result reaches no \`onprogress\` (it is dropped).
  const received: unknown[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    received.push(message);
    deliver?.(message);
  };
  return { client, log, received };
}

/** The progress messages among `received`, in order, up to the response to request `id`. */
function progressBefore(received: unknown[], id: number | string): string[] {
  const messages: string[] = [];
  for (const message of received as Array<{ id?: unknown; method?: string; params?: { message?: string } }>) {
    if (message.id === id && message.method === undefined) return messages;
    if (message.method === "notifications/progress") messages.push(message.params?.message ?? "");
  }
  throw new Error(`no response to request ${String(id)}`);
}

const data = <T>(result: unknown) => (result as CallToolResult).structuredContent as T;
const text = (result: unknown) => {
  const [first] = (result as CallToolResult).content;
  return first?.type === "text" ? first.text : "";
};

describe("sema mcp (stdio)", () => {
  it("lists the tools and runs the agent to completion with progress, in --dir", { timeout: 60_000 }, async () => {
    const dir = workdir([{ text: "Done over stdio." }]);
    // Started elsewhere, as Claude Desktop starts servers: --dir is where the store lives.
    const { client, log, received } = await connect(dir, ["--dir", dir], {}, tmpdir());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ["cancel_task", "decide_approval", "get_task", "list_tasks", "run_default", "send_to_task"].sort(),
    );
    const progress: string[] = [];
    const result = await client.callTool({ name: "run_default", arguments: { objective: "Finish" } }, undefined, {
      onprogress: (note) => progress.push(note.message ?? ""),
    });
    expect(text(result)).toBe("Done over stdio.");
    // The server sends every step before the result, ending with the task's end.
    const answer = (received as Array<{ id?: number; result?: { content?: Array<{ text?: string }> } }>).find(
      (message) => message.result?.content?.[0]?.text === "Done over stdio.",
    );
    const sent = progressBefore(received, answer?.id ?? -1);
    expect(sent.slice(-2)).toEqual(["completed", "leg ended: completed"]);
    expect(sent).toContain("input received");
    // What the client's onprogress got is what was sent, less at most what came in one read with the result.
    expect(sent.slice(0, progress.length)).toEqual(progress);
    expect(progress.length).toBeGreaterThan(0);
    expect(log.text).toContain("as principal local");
    expect(log.text).toContain(join(dir, ".sema", "sema.db"));
  });

  it("steers a running task: the next model turn sees it", { timeout: 60_000 }, async () => {
    // The first turn takes 5 s, long enough (on a loaded machine too) to steer it while it runs; the second echoes the steer.
    const dir = workdir([{ text: "draft", delayMs: 5000 }, { text: "shortened" }]);
    const { client } = await connect(dir);
    const started = await client.callTool({ name: "run_default", arguments: { objective: "Write", wait: false } });
    const { taskId } = data<Detail>(started);
    await expect
      .poll(async () => data<Detail>(await client.callTool({ name: "get_task", arguments: { taskId } })).status, {
        timeout: 20_000,
        interval: 20,
      })
      .toBe("running");
    const sent = await client.callTool({
      name: "send_to_task",
      arguments: { taskId, text: "Shorter, please", wait: true },
    });
    expect(text(sent)).toBe("shortened");
    const transcript = await client.readResource({ uri: `sema://tasks/${taskId}` });
    const first = transcript.contents[0];
    const body = JSON.parse(first !== undefined && "text" in first ? first.text : "{}") as {
      transcript: { role: string; content?: string; text?: string }[];
    };
    const roles = body.transcript.map((entry) => entry.role);
    // The steer came in between the two assistant turns: it reached the running leg.
    expect(roles).toEqual(["user", "assistant", "user", "assistant"]);
    expect(body.transcript[2]?.content).toContain("Shorter, please");
    // …within the one leg that was running, not as a follow-up that started another.
    const log = await client.readResource({ uri: `sema://tasks/${taskId}/events` });
    const page = log.contents[0];
    const { events } = JSON.parse(page !== undefined && "text" in page ? page.text : "{}") as {
      events: { type: string }[];
    };
    expect(events.filter((event) => event.type === "leg_started")).toHaveLength(1);
  });

  it("shows an approval, refuses a wrong digest, and runs the tool once on the right one", {
    timeout: 60_000,
  }, async () => {
    const dir = workdir([
      { toolCalls: [{ name: "write_file", input: { path: "note.txt", content: "hi" } }] },
      { text: "written" },
    ]);
    const { client } = await connect(dir);
    const parked = data<Detail>(
      await client.callTool({ name: "run_default", arguments: { objective: "Write a note" } }),
    );
    expect(parked.status).toBe("parked");
    const [approval] = parked.pendingApprovals;
    expect(approval?.name).toBe("write_file");
    const wrong = await client.callTool({
      name: "decide_approval",
      arguments: { taskId: parked.taskId, callId: approval?.callId, digest: "f".repeat(64), decision: "approve" },
    });
    expect(data<{ error: { code: string } }>(wrong).error.code).toBe("DigestMismatch");
    const right = await client.callTool({
      name: "decide_approval",
      arguments: {
        taskId: parked.taskId,
        callId: approval?.callId,
        digest: approval?.digest,
        decision: "approve",
        wait: true,
      },
    });
    expect(text(right)).toBe("written");
    const log = await client.readResource({ uri: `sema://tasks/${parked.taskId}/events` });
    const first = log.contents[0];
    const { events } = JSON.parse(first !== undefined && "text" in first ? first.text : "{}") as {
      events: { type: string; actor?: { issuer?: string } }[];
    };
    expect(events.filter((event) => event.type === "tool_result")).toHaveLength(1);
    expect(events.find((event) => event.type === "approval_decided")?.actor?.issuer).toBe("sema-cli");
    // The local principal's workspace (a name derived from the principal) holds the note.
    const workspaces = join(dir, ".sema", "workspaces");
    const notes = readdirSync(workspaces).filter((name) => name.startsWith("local-"));
    expect(notes.map((name) => readFileSync(join(workspaces, name, "note.txt"), "utf8"))).toEqual(["hi"]);
  });

  it("acts as the principal of --token / SEMA_TOKEN, which sees none of the local principal's tasks", {
    timeout: 60_000,
  }, async () => {
    const dir = workdir([{ text: "mine" }]);
    const local = await connect(dir);
    const { taskId } = data<Detail>(
      await local.client.callTool({ name: "run_default", arguments: { objective: "Local secret" } }),
    );
    const created = captureIo(dir);
    expect(await main(["token", "create", "--principal", "acme", "--actor", "ann"], created.io)).toBe(0);
    const token = /(sema_\S+)/.exec(created.out())?.[1] ?? "";
    expect(token).not.toBe("");
    for (const how of [
      { args: ["--token", token], env: {} },
      { args: [], env: { SEMA_TOKEN: token } },
    ]) {
      const other = await connect(dir, ["--workers", "0", ...how.args], how.env);
      expect(other.log.text).toContain("as principal acme");
      expect(
        data<{ tasks: unknown[] }>(await other.client.callTool({ name: "list_tasks", arguments: {} })).tasks,
      ).toEqual([]);
      const theirs = await other.client.callTool({ name: "get_task", arguments: { taskId } });
      expect(data<{ error: { code: string } }>(theirs).error.code).toBe("TaskNotFound");
      await expect(other.client.readResource({ uri: `sema://tasks/${taskId}` })).rejects.toThrow(/TaskNotFound/);
    }
  });

  it("refuses a token that is not valid, before serving", { timeout: 60_000 }, async () => {
    const dir = workdir([{ text: "never" }]);
    const c = captureIo(dir);
    expect(
      await main(
        ["mcp", "--model", `script:${join(dir, "turns.json")}`, "--db", join(dir, "x.db"), "--token", "sema_nope"],
        c.io,
      ),
    ).toBe(2);
    expect(c.err()).toContain("token is not valid");
    expect(c.out()).toBe("");
  });
});
