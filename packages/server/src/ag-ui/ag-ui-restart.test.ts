/**
 * An AG-UI thread outlives its server: stopped mid-turn (its leg parks for shutdown), a new
 * server over the same SQLite file is reached by a new `HttpAgent` with no messages, which is
 * given the conversation from the log and follows the leg the new workers run to the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";
import { until } from "../test-support/until.ts";

const dir = mkdtempSync(join(tmpdir(), "sema-ag-ui-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const answer = "A long answer, streamed slowly enough to stop the server in the middle of it.";

describe("an AG-UI thread across a server restart", () => {
  it("is picked up from the log by a client that comes back with nothing", async () => {
    const path = join(dir, "sema.db");
    const start = async () => {
      const store = new SqliteStore({ path });
      const tokens = new SqliteTokenStore({ path });
      const agent = scriptedAgent([{ text: answer, chunkSize: 4, deltaDelayMs: 15 }]);
      const serving = await serve({
        protocols: allProtocols(),
        store,
        tokens,
        agents: createAgentRegistry({ default: agent }),
        port: 0,
        workers: { pollMs: 20 },
      });
      return { store, tokens, serving };
    };
    const first = await start();
    const token = (await first.tokens.create({ principal: "acme", actorId: "alice" })).token;
    const client = (url: string) => {
      const http = new HttpAgent({
        url: `${url}/v1/agents/default/ag-ui`,
        headers: { authorization: `Bearer ${token}` },
        threadId: "thread-restart",
      });
      const events: BaseEvent[] = [];
      http.subscribe({ onEvent: ({ event }) => void events.push(event) });
      return { http, events };
    };

    const before = client(first.serving.url);
    before.http.addMessage({ id: "m1", role: "user", content: "Explain it" });
    const running = before.http.runAgent().catch(() => undefined);
    await until(() => before.events.some((e) => e.type === "TEXT_MESSAGE_CONTENT"));
    // The page goes away mid-turn, then the server stops: neither ends the task.
    before.http.abortRun();
    await running;
    await first.serving.close({ deadlineMs: 0 });
    expect((await first.store.getTask("thread-restart")).summary).toMatchObject({
      status: "parked",
      parkedReason: "shutdown",
    });
    // The old process's handles are left open, as a killed process's file stays: the new server
    // opens the same file beside them.
    const second = await start();
    try {
      const after = client(second.serving.url);
      await after.http.runAgent();
      expect(after.events.map((e) => e.type).slice(0, 2)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT"]);
      const said = after.events
        .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
        .map((e) => (e as { delta?: string }).delta)
        .join("");
      expect(said).toBe(answer);
      expect(after.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" }, result: answer });
      // The client's conversation: the question from the snapshot, the answer once.
      expect(after.http.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(after.http.messages[1]).toMatchObject({ content: answer });
    } finally {
      await second.serving.close({ deadlineMs: 1000 });
      await second.store.close();
      await second.tokens.close();
      await first.store.close();
      await first.tokens.close();
    }
  });
});
