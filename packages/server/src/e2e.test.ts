/**
 * End to end over a socket, on the embedded default (SQLite file, API and workers in one
 * process): create a task with a scripted model, watch it stream, steer it mid-run from a token
 * with an actor, see the steer applied with its label, approve a call through the API, see it end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, type StoredEvent } from "@sema-agent/core";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteTokenStore } from "./ingress/sqlite-token-store.ts";
import { serve } from "./node/serve.ts";
import { allProtocols } from "./test-support/all-protocols.ts";
import { scriptedAgent, writeTool } from "./test-support/api-fixture.ts";
import { FrameReader } from "./test-support/sse-frames.ts";

const dir = mkdtempSync(join(tmpdir(), "sema-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => `found ${q}`,
});

describe("sema serve, end to end", () => {
  it("runs, streams, takes a steer mid-run with its label, and an approval through the API", async () => {
    const path = join(dir, "sema.db");
    const store = new SqliteStore({ path });
    const tokens = new SqliteTokenStore({ path });
    const agent = scriptedAgent([
      {
        text: "Looking around first.",
        chunkSize: 2,
        deltaDelayMs: 25,
        toolCalls: [{ name: "lookup", input: { q: "style" }, callId: "call-look" }],
      },
      { toolCalls: [{ name: "write_note", input: { text: "indent with tabs" }, callId: "call-write" }] },
      { text: "All done." },
    ]);
    agent.tools = [lookup, writeTool];
    const serving = await serve({
      protocols: allProtocols(),
      store,
      tokens,
      agents: createAgentRegistry({ default: agent }),
      port: 0,
      workers: { pollMs: 50 },
    });
    try {
      expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const admin = serving.firstToken?.token ?? "";
      expect(serving.firstToken?.record).toMatchObject({
        principal: "local",
        roles: ["approver", "metrics", "supervisor"],
      });
      const dana = (await tokens.create({ principal: "local", actorId: "dana", roles: ["approver"] })).token;
      const erin = (await tokens.create({ principal: "local", actorId: "erin" })).token;
      const api = (method: string, route: string, token: string, body?: unknown) =>
        fetch(`${serving.url}${route}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });

      const created = await api("POST", "/v1/tasks", admin, { objective: "Tidy the notes" });
      expect(created.status).toBe(201);
      const { taskId } = (await created.json()) as { taskId: string };
      const stream = new FrameReader(await api("GET", `/v1/tasks/${taskId}/events`, dana));

      // Steer while the model is still streaming its first turn.
      await stream.until((frames) => frames.some((f) => f.event === "text_delta"));
      const steer = await api("POST", `/v1/tasks/${taskId}/inputs`, dana, { text: "Use tabs, not spaces" });
      expect(steer.status).toBe(202);
      expect(await steer.json()).toMatchObject({ delivery: "received" });

      // The write waits for a person; approve it through the API with the digest shown.
      await stream.until((frames) => frames.some((f) => f.event === "approval_requested"));
      const detail = (await (await api("GET", `/v1/tasks/${taskId}`, dana)).json()) as {
        status: string;
        pendingApprovals: { callId: string; digest: string; input: unknown }[];
      };
      await stream.until((frames) => frames.some((f) => f.event === "leg_ended"));
      const pending = detail.pendingApprovals[0];
      expect(pending).toMatchObject({ callId: "call-write", input: { text: "indent with tabs" } });
      // A verified token of the principal without the approver role may not decide it.
      const refused = await api("POST", `/v1/tasks/${taskId}/approvals/call-write`, erin, {
        decision: "approve",
        digest: pending?.digest,
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: "Forbidden" } });
      const approved = await api("POST", `/v1/tasks/${taskId}/approvals/call-write`, dana, {
        decision: "approve",
        digest: pending?.digest,
      });
      expect(approved.status).toBe(200);

      const frames = await stream.toEnd();
      expect(frames.filter((f) => f.event === "text_delta").length).toBeGreaterThan(1);
      expect(frames.at(-1)?.event === "leg_ended" || frames.at(-1)?.event === "task_completed").toBe(true);

      const final = (await (await api("GET", `/v1/tasks/${taskId}`, admin)).json()) as {
        status: string;
        result: string;
      };
      expect(final).toMatchObject({ status: "completed", result: "All done." });

      const events = await store.read(taskId);
      const ids = frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));
      expect(ids).toEqual(events.map((e) => e.seq));
      const steerInput = events.find(
        (e): e is Extract<StoredEvent, { type: "human_input" }> => e.type === "human_input" && e.carrier === "steer",
      );
      expect(steerInput).toMatchObject({
        delivery: "received",
        actor: { id: "dana", verified: true, issuer: "sema-token" },
      });
      expect(
        events.some((e) => e.type === "human_input" && e.inputId === steerInput?.inputId && e.delivery === "applied"),
      ).toBe(true);
      const steered = events.find((e) => e.type === "user_message" && e.content.includes("Use tabs, not spaces"));
      expect(steered?.type === "user_message" ? steered.content : "").toContain('[from "dana"]\nUse tabs, not spaces');
      // The model saw it before its second turn, labelled, and never unlabelled.
      const secondRequest = JSON.stringify(agent.model.requests[1]?.transcript);
      expect(secondRequest).toContain('[from \\"dana\\"]\\nUse tabs, not spaces');
      expect(events.find((e) => e.type === "approval_decided")).toMatchObject({
        decision: "approve",
        actor: { id: "dana", verified: true },
      });
      expect(events.find((e) => e.type === "tool_result" && e.callId === "call-write")).toMatchObject({ status: "ok" });
    } finally {
      const result = await serving.close({ deadlineMs: 2000 });
      expect(result.abandoned).toEqual([]);
      await store.close();
      await tokens.close();
    }
  });
});
