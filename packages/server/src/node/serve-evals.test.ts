/**
 * `serve` runs experiments on its node with its workers' settings, and its close stops them: the
 * tasks of a running experiment park as shut down (for a resume) before `close` resolves.
 */
import { MemoryStore } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { createAgentRegistry } from "../index.ts";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { until } from "../test-support/until.ts";
import { serve } from "./serve.ts";

describe("serve: experiments", () => {
  it("close stops a running experiment: its started tasks park as shut down", async () => {
    const store = new MemoryStore();
    // Every answer takes a minute (abortable): the experiment runs until the server stops.
    const slow = { model: new ScriptedModel([{ text: "late", delayMs: 60_000 }], { mode: "by-transcript" }) };
    const serving = await serve({
      store,
      tokens: new MemoryTokenStore(),
      agents: createAgentRegistry({ default: slow }),
      port: 0,
      // Its workers poll fast: they may claim a case's task too, which the experiment then waits for.
      workers: { pollMs: 10 },
    });
    const token = serving.firstToken?.token ?? "";
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${serving.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
      });
    let taskIds: string[] = [];
    let closed = false;
    try {
      const saved = await call("/v1/evals/datasets/set", {
        method: "POST",
        headers: { "content-type": "application/jsonl" },
        body: '{"input":"a"}\n{"input":"b"}\n{"input":"c"}\n',
      });
      expect(saved.status).toBe(201);
      const started = await call("/v1/evals/experiments", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ dataset: "set", scorers: ["turns=3"], concurrency: 2 }),
      });
      expect(started.status).toBe(202);
      const { experimentId } = (await started.json()) as { experimentId: string };
      taskIds = await until(async () => {
        const result = (await (await call(`/v1/evals/experiments/${experimentId}`)).json()) as {
          cases: { taskId: string; status: string }[];
        };
        const running = result.cases.filter((c) => c.status === "running");
        return running.length === 2 ? running.map((c) => c.taskId) : undefined;
      }, "two cases running");
      await serving.close({ deadlineMs: 5_000 });
      closed = true;
      for (const taskId of taskIds)
        expect((await store.getTask(taskId)).summary).toMatchObject({ status: "parked", parkedReason: "shutdown" });
    } finally {
      if (!closed) await serving.close({ deadlineMs: 1000 });
    }
  });
});
