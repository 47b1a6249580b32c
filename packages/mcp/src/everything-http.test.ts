/**
 * The streamable HTTP transport, against server-everything's own HTTP mode on a free loopback
 * port (started per file, stopped after it, and stopping by itself if this process dies).
 */
import "./test-support/no-source-condition.ts";
import type { Tool, ToolContext } from "@sema-agent/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { connectMcp, type McpConnection } from "./connect-mcp.ts";
import { McpToolError } from "./mcp-tool-error.ts";
import { type EverythingHttp, startEverythingHttp } from "./test-support/everything-server.ts";

function context(signal = new AbortController().signal): ToolContext {
  return { signal, taskId: "task-1", legId: "leg-1", callId: "call-1", attempt: 1, principal: "local" };
}

function byName(connection: McpConnection, name: string): Tool {
  const tool = connection.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

async function failure(promise: Promise<unknown> | unknown): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/**
 * Whether the server has taken a `tools/call` (it answered the POST's headers and holds the
 * response open): the moment a test may cut the call off mid-way. Watches this process's fetch,
 * so it must be set up before `connectMcp`.
 */
function watchCallsTaken(): () => boolean {
  const original = globalThis.fetch;
  let taken = false;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const response = await original(input, init);
    if (typeof init?.body === "string" && init.body.includes('"method":"tools/call"')) taken = true;
    return response;
  });
  return () => taken;
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const servers: EverythingHttp[] = [];

async function server(): Promise<EverythingHttp> {
  const started = await startEverythingHttp();
  servers.push(started);
  return started;
}

beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
});

afterEach(() => {
  vi.restoreAllMocks();
  expect(unhandled).toEqual([]);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  process.off("unhandledRejection", onUnhandled);
});

describe("server-everything over streamable HTTP", () => {
  it("lists, maps and calls its tools, then ends the session", async () => {
    const http = await server();
    const connection = await connectMcp({ url: http.url, headers: { "x-sema-test": "1" }, name: "web" });
    try {
      expect(connection.serverInfo.name).toBe("mcp-servers/everything");
      expect(connection.pid).toBeUndefined();
      expect(connection.tools.map((t) => t.name)).toContain("web__get-sum");
      expect(byName(connection, "web__echo")).toMatchObject({
        readOnly: true,
        idempotent: true,
        untrustedOutput: true,
      });
      expect(await byName(connection, "web__echo").execute({ message: "over HTTP" }, context())).toBe(
        "Echo: over HTTP",
      );
      expect(await byName(connection, "web__get-sum").execute({ a: 1, b: 2 }, context())).toBe(
        "The sum of 1 and 2 is 3.",
      );
    } finally {
      await connection.close();
      await connection.close();
    }
  });

  it("cancels a call through its signal", async () => {
    const http = await server();
    const taken = watchCallsTaken();
    const connection = await connectMcp({ url: http.url });
    try {
      const controller = new AbortController();
      const call = failure(
        byName(connection, "trigger-long-running-operation").execute(
          { duration: 30, steps: 30 },
          context(controller.signal),
        ),
      );
      // Cancelled mid-call: once the server has taken it.
      await waitFor(taken);
      controller.abort();
      expect(await call).toMatchObject({ reason: "cancelled" });
      expect(await byName(connection, "echo").execute({ message: "alive" }, context())).toBe("Echo: alive");
    } finally {
      await connection.close();
    }
  });

  it("fails a call as disconnected when the server is killed mid-call, without waiting for a timeout", async () => {
    const http = await server();
    const taken = watchCallsTaken();
    const connection = await connectMcp({ url: http.url, name: "web" });
    try {
      const call = failure(
        byName(connection, "web__trigger-long-running-operation").execute({ duration: 60, steps: 60 }, context()),
      );
      await waitFor(taken);
      await http.stop();
      // "disconnected", not "timeout": the call ended on the lost connection (a 60 s operation,
      // so a call waiting for its timeout or the server would outlast the test's own timeout).
      const error = await call;
      expect(error).toBeInstanceOf(McpToolError);
      expect(error).toMatchObject({ reason: "disconnected", isRetryable: true });
      expect((error as Error).message).toBe(
        "MCP server web disconnected during the call to web__trigger-long-running-operation",
      );
      const later = await failure(byName(connection, "web__echo").execute({ message: "x" }, context()));
      expect(later).toMatchObject({ reason: "disconnected", isRetryable: true });
    } finally {
      await connection.close();
    }
  });

  it("reports a server that cannot be reached as a retryable connect failure", async () => {
    const http = await server();
    await http.stop();
    const error = await failure(connectMcp({ url: http.url }));
    expect(error).toBeInstanceOf(McpToolError);
    expect(error).toMatchObject({ reason: "connect", isRetryable: true });
  });
});
