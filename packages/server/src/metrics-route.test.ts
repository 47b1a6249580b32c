// GET /metrics through app.request(): off by default (404), a token with the metrics role gets
// the Prometheus text of the process's metrics — the GenAI histograms of a task run through the
// API, from the same provider — and any other token is refused.

import { MemoryStore } from "@sema-agent/core";
import { metricsFromEnv } from "@sema-agent/otel/metrics-setup";
import { describe, expect, it } from "vitest";
import { PROMETHEUS_CONTENT_TYPE } from "./metrics-route.ts";
import { apiFixture, createTask, runOnce } from "./test-support/api-fixture.ts";

describe("GET /metrics", () => {
  it("does not exist unless the host serves metrics", async () => {
    const fixture = await apiFixture();
    const response = await fixture.call("GET", "/metrics", { token: fixture.tokens.bob });
    expect(response.status).toBe(404);
  });

  it("serves the Prometheus text to a token with the metrics role, and to no other", async () => {
    const raw = new MemoryStore();
    const metrics = await metricsFromEnv({}, { store: raw, prometheus: true });
    if (metrics?.store === undefined || metrics.prometheus === undefined) throw new Error("no metrics");
    try {
      const fixture = await apiFixture({ store: metrics.store, app: { metrics: metrics.prometheus } });
      const operator = (await fixture.tokenStore.create({ principal: "ops", roles: ["metrics"] })).token;
      const taskId = await createTask(fixture);
      await runOnce(fixture, taskId);

      expect((await fixture.call("GET", "/metrics", { token: null })).status).toBe(401);
      const tenant = await fixture.call("GET", "/metrics", { token: fixture.tokens.bob });
      expect(tenant.status).toBe(403);
      expect(((await tenant.json()) as { error: { code: string } }).error.code).toBe("Forbidden");

      const response = await fixture.call("GET", "/metrics", { token: operator });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
      const text = await response.text();
      for (const line of text.split("\n").filter((line) => line !== "" && !line.startsWith("#")))
        expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [0-9.e+-]+$/);
      expect(text).toContain("# TYPE gen_ai_client_operation_duration histogram");
      expect(text).toMatch(/gen_ai_client_operation_duration_count\{gen_ai_operation_name="chat"[^}]*\} 1/);
      expect(text).toMatch(/gen_ai_client_token_usage_bucket\{[^}]*gen_ai_token_type="output"[^}]*\} 1/);
      expect(text).toMatch(/sema_task_ended_total\{[^}]*sema_task_status="completed"[^}]*\} 1/);
      // Bounded labels: no task id or principal in any line.
      expect(text).not.toContain(taskId);
      expect(text).not.toContain("acme");
    } finally {
      await metrics.shutdown();
    }
  });
});
