/**
 * Against the published reference server `@modelcontextprotocol/server-everything` over stdio:
 * listing and mapping its tools, calling them, and how each content type reaches the model.
 */
import type { Tool, ToolContext } from "@sema-agent/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcp, type McpConnection } from "./connect-mcp.ts";
import { McpToolError } from "./mcp-tool-error.ts";
import { everythingStdio, tappedMessages } from "./test-support/everything-server.ts";

function context(signal = new AbortController().signal): ToolContext {
  return { signal, taskId: "task-1", legId: "leg-1", callId: "call-1", attempt: 1, principal: "local" };
}

function byName(connection: McpConnection, name: string): Tool {
  const tool = connection.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in ${connection.tools.map((t) => t.name).join(", ")}`);
  return tool;
}

async function run(connection: McpConnection, name: string, input: unknown): Promise<unknown> {
  return byName(connection, name).execute(input, context());
}

describe("server-everything over stdio", () => {
  let plain: McpConnection;
  let prefixed: McpConnection;
  let stderr = "";

  beforeAll(async () => {
    [plain, prefixed] = await Promise.all([
      connectMcp({ ...everythingStdio(), onStderr: (text) => (stderr += text) }),
      connectMcp({
        ...everythingStdio({ tapStdin: true }),
        name: "everything",
        onStderr: (text) => (stderr += text),
        overrides: {
          "everything__get-sum": { readOnly: false, timeoutMs: 5000 },
          "toggle-subscriber-updates": { idempotent: true },
        },
      }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([plain?.close(), prefixed?.close()]);
  });

  it("lists its tools, maps each name, and skips those that only run as MCP tasks", () => {
    expect(plain.tools.map((t) => t.name)).toEqual([
      "echo",
      "get-annotated-message",
      "get-env",
      "get-resource-links",
      "get-resource-reference",
      "get-structured-content",
      "get-sum",
      "get-tiny-image",
      "gzip-file-as-resource",
      "toggle-simulated-logging",
      "toggle-subscriber-updates",
      "trigger-long-running-operation",
    ]);
    expect(plain.skipped).toEqual([{ name: "simulate-research-query", reason: expect.stringContaining("MCP task") }]);
    expect(prefixed.tools.map((t) => t.name)).toContain("everything__echo");
    expect(prefixed.tools.every((t) => /^everything__[a-z-]+$/.test(t.name))).toBe(true);
    expect(plain.serverInfo).toMatchObject({ name: "mcp-servers/everything", title: "Everything Reference Server" });
    expect(plain.serverInfo.instructions).toContain("Everything Server");
    expect(plain.pid).toEqual(expect.any(Number));
  });

  it("takes the description and the input schema as given, and fences every tool's output", () => {
    const echo = byName(plain, "echo");
    expect(echo.description).toBe("Echoes back the input string");
    expect(echo.jsonSchema).toEqual({
      type: "object",
      properties: { message: { type: "string", description: "Message to echo" } },
      required: ["message"],
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    expect(plain.tools.every((t) => t.untrustedOutput === true)).toBe(true);
  });

  it("believes readOnlyHint / idempotentHint only when true, and lets the host override them", () => {
    expect(byName(plain, "echo")).toMatchObject({ readOnly: true, idempotent: true });
    // readOnlyHint false, idempotentHint true.
    const gzip = byName(plain, "gzip-file-as-resource");
    expect(gzip.idempotent).toBe(true);
    expect(gzip.readOnly).toBeUndefined();
    // Both hints false: neither property is set.
    const toggle = byName(plain, "toggle-subscriber-updates");
    expect(toggle.readOnly).toBeUndefined();
    expect(toggle.idempotent).toBeUndefined();
    // Overrides, keyed by the Sema name or the server's name.
    expect(byName(prefixed, "everything__get-sum")).toMatchObject({
      readOnly: false,
      idempotent: true,
      timeoutMs: 5000,
    });
    expect(byName(prefixed, "everything__toggle-subscriber-updates").idempotent).toBe(true);
  });

  it("calls echo and get-sum", async () => {
    expect(await run(plain, "echo", { message: "hello, MCP" })).toBe("Echo: hello, MCP");
    expect(await run(prefixed, "everything__get-sum", { a: 2, b: 40 })).toBe("The sum of 2 and 40 is 42.");
  });

  it("rejects input that fails the schema with the failing path, before anything is sent", async () => {
    const sum = byName(prefixed, "everything__get-sum");
    const wrongType = await sum.inputSchema["~standard"].validate({ a: "2", b: 3 });
    expect(wrongType.issues).toEqual([{ message: "must be number", path: ["a"] }]);
    const missing = await sum.inputSchema["~standard"].validate({ a: 2 });
    expect(missing.issues).toEqual([{ message: "must have required property 'b'", path: ["b"] }]);
    const notObject = await sum.inputSchema["~standard"].validate([1, 2]);
    expect(notObject.issues).toEqual([{ message: "must be object", path: [] }]);
    const links = await byName(plain, "get-resource-links").inputSchema["~standard"].validate({ count: 11 });
    expect(links.issues).toEqual([{ message: "must be <= 10", path: ["count"] }]);
    // The stdin tap shows every message the server read, in order: once a later call shows,
    // any earlier one would have; none carried the rejected arguments.
    await sum.execute({ a: 1, b: 1 }, context());
    await expect
      .poll(() => tappedMessages(stderr).some((m) => JSON.stringify(m.params?.arguments) === '{"a":1,"b":1}'))
      .toBe(true);
    const sent = tappedMessages(stderr).map((m) => JSON.stringify(m.params?.arguments));
    expect(sent).not.toContain('{"a":"2","b":3}');
    expect(sent).not.toContain('{"a":2}');
  });

  it("throws the tool's own error text for an isError result (the harness fences it)", async () => {
    const error = await run(plain, "get-resource-reference", { resourceType: "Text", resourceId: 1.5 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpToolError);
    expect(error).toMatchObject({
      code: "ToolError",
      reason: "tool-error",
      isRetryable: false,
      tool: "get-resource-reference",
    });
    const message = (error as Error).message;
    expect(message).toMatch(
      /^The MCP tool get-resource-reference reported an error:\nInvalid resourceId: 1\.5\. Must be a finite positive integer\./,
    );
    // Arguments that skip Sema's check meet the server's own, which also answers isError.
    const refused = await run(plain, "echo", { message: 42 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: "tool-error" });
    expect((refused as Error).message).toContain("Input validation error");
  });

  it("shows an image as a placeholder", async () => {
    const text = await run(plain, "get-tiny-image", {});
    expect(text).toMatch(
      /^Here's the image you requested:\n\n\[image: image\/png, \d{1,3}(,\d{3})* bytes base64\]\n\nThe image above is the MCP logo\.$/,
    );
  });

  it("shows resource links and embedded resources by URI, with their text", async () => {
    expect(await run(plain, "get-resource-links", { count: 2 })).toBe(
      [
        "Here are 2 resource links to resources available in this server:",
        "[resource link: demo://resource/dynamic/blob/1, Blob Resource 1, text/plain]\nResource 1: plaintext resource",
        "[resource link: demo://resource/dynamic/text/2, Text Resource 2, text/plain]\nResource 2: plaintext resource",
      ].join("\n\n"),
    );
    const text = await run(plain, "get-resource-reference", { resourceType: "Text", resourceId: 1 });
    expect(text).toMatch(/\n\n\[resource: demo:\/\/resource\/dynamic\/text\/1, text\/plain\]\nResource 1: .+\n\n/);
    const blob = await run(plain, "get-resource-reference", { resourceType: "Blob", resourceId: 2 });
    expect(blob).toMatch(/\n\n\[resource: demo:\/\/resource\/dynamic\/blob\/2, text\/plain, \d+ bytes base64\]\n\n/);
  });

  it("reads a result with both text and structured content once, as its text", async () => {
    const text = await run(plain, "get-structured-content", { location: "Chicago" });
    expect(JSON.parse(String(text))).toEqual({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });
  });
});

describe("the stdio server's environment", () => {
  it("gets the env it is given and a minimal inherited one, not the host's whole environment", async () => {
    const connection = await connectMcp(everythingStdio({ env: { SEMA_MCP_TEST: "passed through" } }));
    try {
      const env = JSON.parse(String(await run(connection, "get-env", {}))) as Record<string, string>;
      expect(env.SEMA_MCP_TEST).toBe("passed through");
      expect(process.env.VITEST).toBeDefined();
      expect(env.VITEST).toBeUndefined();
    } finally {
      await connection.close();
    }
  });
});
