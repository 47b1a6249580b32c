/**
 * Issue 37 end to end through `/v1` (`serve` over a SQLite file, API and workers in one process),
 * with a model that obeys every `call <tool> with {json}` it reads: a sub-agent that read an
 * injected page cannot launder it into its parent's call, and a read-only fetch whose URL carries
 * the plan out is held by the egress rule. Each held call shows why on `GET /v1/tasks/:id`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteTokenStore } from "./ingress/sqlite-token-store.ts";
import { serve } from "./node/serve.ts";
import { allProtocols } from "./test-support/all-protocols.ts";
import { obedientWorld } from "./test-support/obedient-world.ts";
import { until } from "./test-support/until.ts";

const dir = mkdtempSync(join(tmpdir(), "sema-provenance-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface TaskView {
  status: string;
  pendingApprovals: Array<{ name: string; provenance?: Record<string, unknown> }>;
}

describe("issue 37 end to end through /v1", () => {
  it("holds a sub-agent's laundered instruction and a read that carries data out", async () => {
    const path = join(dir, "sema.db");
    const w = obedientWorld();
    const store = new SqliteStore({ path });
    const tokens = new SqliteTokenStore({ path });
    const serving = await serve({
      protocols: allProtocols(),
      store,
      tokens,
      agents: createAgentRegistry(w.agents, "default"),
      port: 0,
      workers: { pollMs: 20 },
    });
    try {
      const token = serving.firstToken?.token ?? "";
      const api = async (method: string, route: string, body?: unknown) => {
        const response = await fetch(`${serving.url}${route}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const parked = (taskId: string) =>
        until(async () => {
          const view = (await api("GET", `/v1/tasks/${taskId}`)).body as unknown as TaskView;
          return view.pendingApprovals.length > 0 ? view : undefined;
        }, `a held call on ${taskId}`);

      // Laundering through a sub-agent: the researcher reads the page and reports it; the lead
      // obeys the report. Its call rests on the delegate's answer, untrusted.
      const laundered = await api("POST", "/v1/tasks", { objective: "Find a vendor and act on what you learn" });
      expect(laundered.status).toBe(201);
      const lead = await parked(String(laundered.body.taskId));
      expect(lead.pendingApprovals[0]).toMatchObject({
        name: "send_email",
        provenance: {
          classification: "tainted",
          effects: "external",
          spans: [expect.objectContaining({ tool: "delegate", untrustedTool: true, argument: "/to", match: "email" })],
        },
      });
      expect(w.sent).toEqual([]);

      // Exfiltration through a read: a read-only fetch, held because its URL is tainted.
      const read = await api("POST", "/v1/tasks", { objective: "Summarize docs/plan.md", agent: "reader" });
      expect(read.status).toBe(201);
      const reader = await parked(String(read.body.taskId));
      expect(reader.pendingApprovals[0]).toMatchObject({
        name: "fetch_page",
        provenance: { classification: "tainted", effects: "none", egress: { destinations: ["evil.example"] } },
      });
      expect(w.fetched.filter((url) => url.includes("evil.example"))).toEqual([]);
    } finally {
      await serving.close({ deadlineMs: 2000 });
      await store.close();
      await tokens.close();
    }
  });
});
