/**
 * The bad-input corpus at the MCP protocol level, over a real socket with the SDK's Client and
 * raw requests in a live session: malformed JSON-RPC, unknown methods and tools, wrong argument
 * types, oversized text, unknown task ids and resources. Every case is a typed error (a JSON-RPC
 * error or an `isError` result with the API's code), never a 5xx, and nothing is stored.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { data, type McpFixture, mcpFixture } from "./test-support.ts";

let fx: McpFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const UNKNOWN = "0190aaaa-0000-7000-8000-000000000000";

describe("MCP bad input", () => {
  it("answers every case with a typed error, never a 5xx, and stores nothing", async () => {
    fx = await mcpFixture([{ text: "never" }]);
    const stderr = vi.spyOn(console, "error");
    try {
      const client = await fx.client(fx.tokens.bob);
      const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId ?? "";
      const raw = (body: string) =>
        fetch(`${fx?.url}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${fx?.tokens.bob}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": sessionId,
            "mcp-protocol-version": "2025-06-18",
          },
          body,
        });
      for (const body of ['{"hello":1}', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', "42"]) {
        const response = await raw(body);
        expect(response.status, body).toBeGreaterThanOrEqual(400);
        expect(response.status, body).toBeLessThan(500);
        const answer = (await response.json()) as { error?: { code?: unknown } };
        expect(typeof answer.error?.code, body).toBe("number");
      }

      // Unknown methods and tools: JSON-RPC errors.
      await expect(client.request({ method: "tasks/frobnicate", params: {} }, z.object({}))).rejects.toThrow(McpError);
      const tools: [string, Record<string, unknown>, string][] = [
        ["no_such_tool", {}, ""],
        ["run_default", { objective: 5 }, ""],
        ["run_default", {}, ""],
        ["decide_approval", { taskId: UNKNOWN, callId: "c", digest: "xyz", decision: "approve" }, ""],
        ["decide_approval", { taskId: UNKNOWN, callId: "c", digest: "a".repeat(64), decision: "maybe" }, ""],
        ["list_tasks", { limit: 0 }, ""],
        // Refused by the same ingress checks as /v1, with the same codes.
        ["run_default", { objective: "x".repeat(40_000) }, "PayloadTooLarge"],
        ["run_default", { objective: "   " }, "InvalidInput"],
        ["send_to_task", { taskId: UNKNOWN, text: "hi" }, "TaskNotFound"],
        ["get_task", { taskId: "../../etc/passwd" }, "TaskNotFound"],
        ["get_task", { taskId: UNKNOWN }, "TaskNotFound"],
        ["cancel_task", { taskId: UNKNOWN }, "TaskNotFound"],
        [
          "decide_approval",
          { taskId: UNKNOWN, callId: "c", digest: "a".repeat(64), decision: "approve" },
          "TaskNotFound",
        ],
        ["list_tasks", { cursor: "not-a-cursor" }, "InvalidInput"],
      ];
      for (const [name, args, code] of tools) {
        const label = `${name} ${JSON.stringify(args).slice(0, 80)}`;
        const result = await client.callTool({ name, arguments: args }).catch((error: unknown) => error);
        if (result instanceof McpError) {
          expect(code, label).toBe("");
          expect(result.code, label).not.toBe(ErrorCode.InternalError);
          continue;
        }
        expect((result as { isError?: boolean }).isError, label).toBe(true);
        if (code !== "") expect(data<{ error: { code: string } }>(result).error.code, label).toBe(code);
      }

      // Unknown resources and bad pages.
      for (const uri of [
        `sema://tasks/${UNKNOWN}`,
        `sema://tasks/${UNKNOWN}/events`,
        "sema://nope",
        "file:///etc/passwd",
      ]) {
        await expect(client.readResource({ uri }), uri).rejects.toThrow(McpError);
      }
      const mine = data<{ taskId: string }>(
        await client.callTool({ name: "run_default", arguments: { objective: "ok", wait: false } }),
      );
      await expect(client.readResource({ uri: `sema://tasks/${mine.taskId}/events?after=-1` })).rejects.toThrow(
        /after/,
      );
      await expect(client.readResource({ uri: `sema://tasks/${mine.taskId}/events?after=x` })).rejects.toThrow(/after/);

      // Still healthy; only the one good task is stored.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      expect((await fx.store.listTasks({ principal: "acme" })).tasks.map((task) => task.taskId)).toEqual([mine.taskId]);
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
  });
});
