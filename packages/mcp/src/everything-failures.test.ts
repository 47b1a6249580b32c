/**
 * How calls end when they do not end well, against the real server-everything over stdio: a
 * cancel that reaches the server, a server killed mid-call, a timeout, a close mid-call, and a
 * server that never comes up. Every one is an `McpToolError`, never a hang or a stray rejection.
 */
import type { Tool, ToolContext } from "@sema-agent/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectMcp, type McpConnection } from "./connect-mcp.ts";
import { McpToolError } from "./mcp-tool-error.ts";
import { everythingStdio, tappedMessages } from "./test-support/everything-server.ts";

const LONG = "everything__trigger-long-running-operation";

function context(signal = new AbortController().signal): ToolContext {
  return { signal, taskId: "task-1", legId: "leg-1", callId: "call-1", attempt: 1, principal: "local" };
}

function byName(connection: McpConnection, name: string): Tool {
  const tool = connection.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

/** Settles with what the promise rejected with, so a test can inspect it. */
async function failure(promise: Promise<unknown> | unknown): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const opened: McpConnection[] = [];

async function open(options: Parameters<typeof connectMcp>[0]): Promise<McpConnection> {
  const connection = await connectMcp(options);
  opened.push(connection);
  return connection;
}

beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
});

afterEach(() => {
  expect(unhandled).toEqual([]);
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  process.off("unhandledRejection", onUnhandled);
});

describe("a call cancelled through its AbortSignal", () => {
  it("rejects at once and sends notifications/cancelled for that request to the server", async () => {
    let stderr = "";
    const connection = await open({
      ...everythingStdio({ tapStdin: true }),
      name: "everything",
      onStderr: (text) => (stderr += text),
    });
    const controller = new AbortController();
    const call = failure(byName(connection, LONG).execute({ duration: 30, steps: 30 }, context(controller.signal)));
    await waitFor(() => tappedMessages(stderr).some((m) => m.method === "tools/call"));
    controller.abort(new Error("interrupted by the user"));
    // "At once" is the abort's own turn of the event loop: the rejection does not wait for the
    // server (the 30 s operation) or for any reply from it.
    const first = await Promise.race([call, new Promise((resolve) => setImmediate(() => resolve("still pending")))]);
    expect(first).not.toBe("still pending");
    const error = await call;
    expect(error).toBeInstanceOf(McpToolError);
    expect(error).toMatchObject({ reason: "cancelled", isRetryable: false, tool: LONG, server: "everything" });
    expect((error as Error).message).toBe(`The call to ${LONG} on MCP server everything was cancelled`);
    // The tap shows what the server read: the call, then its cancellation by request id.
    await expect.poll(() => tappedMessages(stderr).some((m) => m.method === "notifications/cancelled")).toBe(true);
    const messages = tappedMessages(stderr);
    const request = messages.find((m) => m.method === "tools/call");
    expect(request?.params?.name).toBe("trigger-long-running-operation");
    expect(messages.filter((m) => m.method === "notifications/cancelled")).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: request?.id, reason: expect.any(String) },
      },
    ]);
    // The connection survives a cancel.
    expect(await byName(connection, "everything__echo").execute({ message: "still here" }, context())).toBe(
      "Echo: still here",
    );
  });

  it("fails at once when the signal is already aborted", async () => {
    const connection = await open(everythingStdio());
    const controller = new AbortController();
    controller.abort();
    const error = await failure(byName(connection, "echo").execute({ message: "x" }, context(controller.signal)));
    expect(error).toMatchObject({ reason: "cancelled" });
  });
});

describe("a server killed mid-call", () => {
  it("fails the call with a retryable McpToolError, then fails later calls fast", async () => {
    let stderr = "";
    const connection = await open({
      ...everythingStdio({ tapStdin: true }),
      name: "everything",
      onStderr: (text) => (stderr += text),
    });
    const pid = connection.pid;
    if (pid === undefined) throw new Error("no pid");
    const call = failure(byName(connection, LONG).execute({ duration: 30, steps: 30 }, context()));
    // Killed once the server has read the call: mid-call, not before it.
    await waitFor(() => tappedMessages(stderr).some((m) => m.method === "tools/call"));
    process.kill(pid, "SIGKILL");
    const error = await call;
    expect(error).toBeInstanceOf(McpToolError);
    expect(error).toMatchObject({ code: "ToolError", reason: "exited", isRetryable: true });
    expect((error as Error).message).toBe(`MCP server everything exited during the call to ${LONG}`);
    const later = await failure(byName(connection, "everything__echo").execute({ message: "x" }, context()));
    expect(later).toMatchObject({ reason: "exited" });
    expect((later as Error).message).toBe(
      "MCP server everything has exited; the call to everything__echo was not sent",
    );
    await connection.close();
    await connection.close();
  });
});

describe("a call that outlives its timeout", () => {
  it("fails as a retryable timeout; the tool carries the same timeout for the harness", async () => {
    // Per tool, so the handshake is not held to 300 ms on a loaded machine.
    const connection = await open({
      ...everythingStdio(),
      name: "everything",
      timeoutMs: 20_000,
      overrides: { [LONG]: { timeoutMs: 300 } },
    });
    expect(byName(connection, "everything__echo").timeoutMs).toBe(20_000);
    const tool = byName(connection, LONG);
    expect(tool.timeoutMs).toBe(300);
    const error = await failure(tool.execute({ duration: 30, steps: 30 }, context()));
    expect(error).toMatchObject({ reason: "timeout", isRetryable: true });
    expect((error as Error).message).toBe(`MCP server everything did not answer the call to ${LONG} within 300 ms`);
  });

  it("bounds the handshake with connectTimeoutMs", async () => {
    // A process that starts but never speaks MCP.
    const error = await failure(
      connectMcp({ command: process.execPath, args: ["-e", "setTimeout(() => {}, 60000)"], connectTimeoutMs: 300 }),
    );
    expect(error).toMatchObject({ reason: "timeout", isRetryable: true });
    expect((error as Error).message).toMatch(/did not answer within 300 ms while connecting$/);
  });
});

describe("close()", () => {
  it("fails calls still running, stops the child, and is idempotent", async () => {
    let stderr = "";
    const connection = await open({ ...everythingStdio({ tapStdin: true }), onStderr: (text) => (stderr += text) });
    const pid = connection.pid;
    if (pid === undefined) throw new Error("no pid");
    const call = failure(
      byName(connection, "trigger-long-running-operation").execute({ duration: 30, steps: 30 }, context()),
    );
    // Closed once the server has read the call: the call is running, not merely queued.
    await waitFor(() => tappedMessages(stderr).some((m) => m.method === "tools/call"));
    await Promise.all([connection.close(), connection.close()]);
    await connection.close();
    const error = await call;
    expect(error).toMatchObject({ reason: "closed", isRetryable: false });
    expect(isAlive(pid)).toBe(false);
    const after = await failure(byName(connection, "echo").execute({ message: "x" }, context()));
    expect(after).toMatchObject({ reason: "closed" });
  });
});

describe("a server that never comes up", () => {
  it("reports a command that exits, with the last line it wrote to stderr", async () => {
    const error = await failure(
      connectMcp({
        command: process.execPath,
        args: ["-e", "console.error('loading config'); console.error('fatal: no API key'); process.exit(3)"],
        name: "broken",
      }),
    );
    expect(error).toBeInstanceOf(McpToolError);
    expect(error).toMatchObject({ reason: "exited", server: "broken" });
    expect((error as Error).message).toBe(
      "MCP server broken exited while connecting (its last stderr line: fatal: no API key)",
    );
    expect((error as McpToolError).details.stderr).toContain("loading config");
  });

  it("reports a command that does not exist", async () => {
    const error = await failure(connectMcp({ command: "/nonexistent/sema-mcp-server" }));
    expect(error).toMatchObject({ reason: "connect", isRetryable: false, server: "sema-mcp-server" });
    expect((error as Error).message).toContain("ENOENT");
  });
});
