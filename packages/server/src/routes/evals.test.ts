import { type Agent, MemoryStore } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { parseDataset } from "@sema-agent/evals";
import { createAgentRegistry } from "@sema-agent/worker";
import { describe, expect, it } from "vitest";
import { DATASET, geoAgent } from "../../../evals/src/experiments/experiment.fixture.ts";
import { type AppOptions, createApp } from "../app.ts";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { createTokenIngress } from "../ingress/token-ingress.ts";
import { ExperimentList } from "../schemas/evals.ts";
import { TaskDetail, TaskPage } from "../schemas/tasks.ts";
import { type ApiFixture, apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";
import { until } from "../test-support/until.ts";

const UNKNOWN = "0190aaaa-0000-7000-8000-000000000000";

/** An agent whose every answer takes a minute (abortable): an experiment over it runs until stopped. */
function slowAgent(): Agent {
  return { model: new ScriptedModel([{ text: "late", delayMs: 60_000 }], { mode: "by-transcript" }) };
}

/** The API with the geography agents: `default` answers right, `b` gets Spain wrong, `slow` hangs. */
async function evalsFixture(app: Partial<AppOptions> = {}): Promise<ApiFixture> {
  return apiFixture({
    app: {
      agents: createAgentRegistry(
        { default: geoAgent("A").agent, b: geoAgent("B").agent, slow: slowAgent() },
        "default",
      ),
      protocols: [],
      ...app,
    },
  });
}

async function upload(fx: ApiFixture, name: string, text = DATASET, token?: string): Promise<Response> {
  return fx.call("POST", `/v1/evals/datasets/${name}`, {
    raw: text,
    headers: { "content-type": "application/jsonl" },
    ...(token === undefined ? {} : { token }),
  });
}

interface Result {
  experimentId: string;
  running: boolean;
  scorers: string[];
  means: Record<string, number>;
  cases: { caseId: string; taskId: string; status: string; scores: Record<string, { value: number }> }[];
  totals: { cases: number; completed: number };
  gateFailures?: { message: string }[];
}

async function start(fx: ApiFixture, body: unknown, token?: string): Promise<Response> {
  return fx.call("POST", "/v1/evals/experiments", { body, ...(token === undefined ? {} : { token }) });
}

/** Poll the experiment until it no longer runs here (a deadline, no fixed sleep); its results. */
async function finished(fx: ApiFixture, experimentId: string, token?: string): Promise<Result> {
  return until(
    async () => {
      const result = await json<Result>(
        await fx.call("GET", `/v1/evals/experiments/${experimentId}`, token === undefined ? {} : { token }),
      );
      return result.running ? undefined : result;
    },
    `experiment ${experimentId} to end`,
    20_000,
  );
}

async function runToEnd(fx: ApiFixture, body: Record<string, unknown>): Promise<Result> {
  const response = await start(fx, body);
  expect(response.status, await response.clone().text()).toBe(202);
  const { experimentId } = await json<{ experimentId: string }>(response);
  expect(response.headers.get("location")).toBe(`/v1/evals/experiments/${experimentId}`);
  return finished(fx, experimentId);
}

describe("/v1/evals/datasets", () => {
  it("saves a JSON Lines file as versions of a name, lists it, and reads it back to the same digest", async () => {
    const fx = await evalsFixture();
    const first = await upload(fx, "geo");
    expect(first.status).toBe(201);
    const saved = await json<{ name: string; version: number; cases: number; digest: string }>(first);
    const parsed = await parseDataset(DATASET);
    expect(saved).toMatchObject({ name: "geo", version: 1, cases: 4, digest: parsed.digest });
    expect(first.headers.get("location")).toBe("/v1/evals/datasets/geo?version=1");
    const second = await upload(fx, "geo", DATASET.split("\n").slice(0, 2).join("\n"));
    expect(await json(second)).toMatchObject({ version: 2, cases: 2 });

    const list = await json<{ datasets: unknown[] }>(await fx.call("GET", "/v1/evals/datasets"));
    expect(list.datasets).toEqual([expect.objectContaining({ name: "geo", version: 2, cases: 2 })]);

    const latest = await fx.call("GET", "/v1/evals/datasets/geo");
    expect(latest.status).toBe(200);
    expect(latest.headers.get("content-type")).toBe("application/jsonl; charset=utf-8");
    expect(latest.headers.get("x-sema-dataset-version")).toBe("2");
    expect((await parseDataset(await latest.text())).cases).toHaveLength(2);
    const v1 = await fx.call("GET", "/v1/evals/datasets/geo?version=1");
    expect((await parseDataset(await v1.text())).digest).toBe(parsed.digest);
    expect((await fx.call("GET", "/v1/evals/datasets/geo?version=3")).status).toBe(404);
    expect((await fx.call("GET", "/v1/evals/datasets/nope")).status).toBe(404);
  });

  it("refuses a bad line naming it, and saves nothing", async () => {
    const fx = await evalsFixture();
    const bad = await upload(fx, "geo", '{"input":"a"}\n{"input":\n');
    expect(bad.status).toBe(400);
    const body = await json<{ error: { code: string; message: string } }>(bad);
    expect(body.error.code).toBe("InvalidInput");
    expect(body.error.message).toContain("line 2");
    const noInput = await upload(fx, "geo", '{"input":"a"}\n\n{"expected":"b"}\n');
    expect((await json<{ error: { message: string } }>(noInput)).error.message).toContain("line 3");
    expect(await json(await fx.call("GET", "/v1/evals/datasets"))).toEqual({ datasets: [] });
  });

  it("refuses a name of the wrong form naming the field, an oversized body with 413, another type with 415", async () => {
    const fx = await evalsFixture({ limits: { maxDatasetBodyBytes: 64 } });
    const badName = await upload(fx, "-geo");
    expect(badName.status).toBe(400);
    expect((await json<{ error: { details: { path: string } } }>(badName)).error.details.path).toBe("params.name");
    expect((await upload(fx, "geo", DATASET)).status).toBe(413);
    const plain = await fx.call("POST", "/v1/evals/datasets/geo", {
      raw: '{"input":"a"}',
      headers: { "content-type": "text/plain" },
    });
    expect(plain.status).toBe(415);
    expect((await json<{ error: { message: string } }>(plain)).error.message).toContain(
      "application/jsonl or application/x-ndjson or application/json",
    );
    expect((await upload(fx, "geo", '{"input":"a"}')).status).toBe(201);
  });

  it("makes a dataset of the caller's tasks; another principal's task is a 404 as an unknown one", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx, "Say done");
    await runOnce(fx, taskId);
    const made = await fx.call("POST", "/v1/evals/datasets/recorded", { body: { fromTasks: [taskId] } });
    expect(made.status).toBe(201);
    expect(await json(made)).toMatchObject({ name: "recorded", version: 1, cases: 1 });
    const file = await (await fx.call("GET", "/v1/evals/datasets/recorded")).text();
    expect((await parseDataset(file)).cases[0]).toMatchObject({ input: "Say done", expected: "done" });

    const theirs = await fx.call("POST", "/v1/evals/datasets/stolen", {
      token: fx.tokens.mallory,
      body: { fromTasks: [taskId] },
    });
    const unknown = await fx.call("POST", "/v1/evals/datasets/stolen", {
      token: fx.tokens.mallory,
      body: { fromTasks: [UNKNOWN] },
    });
    expect(theirs.status).toBe(404);
    expect((await theirs.text()).replaceAll(taskId, "ID")).toBe((await unknown.text()).replaceAll(UNKNOWN, "ID"));
    expect(await json(await fx.call("GET", "/v1/evals/datasets", { token: fx.tokens.mallory }))).toEqual({
      datasets: [],
    });
  });
});

describe("/v1/evals/experiments", () => {
  it("runs a dataset in the background, scores it, and GET shows the results and the tasks' scores", async () => {
    const fx = await evalsFixture();
    await upload(fx, "geo");
    const result = await runToEnd(fx, { dataset: "geo", scorers: ["exact-match", "includes"], name: "A" });
    expect(result.totals).toMatchObject({ cases: 4, completed: 4 });
    expect(result.means).toEqual({ "exact-match": 1, includes: 1 });
    expect(result.cases.map((c) => c.caseId)).toEqual(["portugal", "france", "spain", "italy"]);

    const spain = result.cases.find((c) => c.caseId === "spain");
    const detail = await json(await fx.call("GET", `/v1/tasks/${spain?.taskId}`));
    expect(TaskDetail.safeParse(detail).success).toBe(true);
    expect(detail.scores).toEqual({
      "exact-match": expect.objectContaining({ value: 1, experiment: result.experimentId }),
      includes: expect.objectContaining({ value: 1, experiment: result.experimentId }),
    });
    const page = await json<{ tasks: { taskId: string; scores?: unknown }[] }>(await fx.call("GET", "/v1/tasks"));
    expect(TaskPage.safeParse(page).success).toBe(true);
    expect(page.tasks.find((t) => t.taskId === spain?.taskId)?.scores).toEqual(detail.scores);

    const listed = await json<{ experiments: unknown[] }>(await fx.call("GET", "/v1/evals/experiments"));
    expect(listed.experiments).toEqual([
      expect.objectContaining({ experimentId: result.experimentId, name: "A", agent: "default", running: false }),
    ]);
    expect(listed).not.toHaveProperty("summaries");
    // With ?summary=true, each one's results without their cases, in one request.
    const second = await runToEnd(fx, { dataset: "geo", scorers: ["exact-match"], name: "B" });
    const summarized = ExperimentList.parse(await json(await fx.call("GET", "/v1/evals/experiments?summary=true")));
    expect(summarized.experiments.map((e) => e.experimentId)).toEqual([result.experimentId, second.experimentId]);
    const one = async (id: string) => {
      const { cases: _cases, ...rest } = await json<Result>(await fx.call("GET", `/v1/evals/experiments/${id}`));
      return rest;
    };
    expect(summarized.summaries).toEqual([await one(result.experimentId), await one(second.experimentId)]);
    expect(summarized.summaries?.[0]).not.toHaveProperty("cases");
    for (const bad of ["summary=yes", "summary=", "summaries=true"])
      expect((await fx.call("GET", `/v1/evals/experiments?${bad}`)).status, bad).toBe(400);
    // Gates are checked on a read: a pass, a failure, a bad one.
    const passed = await json<Result>(
      await fx.call("GET", `/v1/evals/experiments/${result.experimentId}?gate=exact-match>=0.9&gate=includes==1`),
    );
    expect(passed.gateFailures).toEqual([]);
    const failed = await json<Result>(
      await fx.call(
        "GET",
        `/v1/evals/experiments/${result.experimentId}?gate=${encodeURIComponent("exact-match > 1")}`,
      ),
    );
    expect(failed.gateFailures?.map((f) => f.message)).toEqual(["exact-match mean 1 is not > 1"]);
    const unknownScorer = await fx.call("GET", `/v1/evals/experiments/${result.experimentId}?gate=turns<=3`);
    expect(unknownScorer.status).toBe(400);
  });

  it("compares two experiments and finds the planted regression", async () => {
    const fx = await evalsFixture();
    await upload(fx, "geo");
    const a = await runToEnd(fx, { dataset: "geo", scorers: ["exact-match"], name: "A" });
    const b = await runToEnd(fx, { dataset: "geo", agent: "b", scorers: ["exact-match"], name: "B" });
    expect(b.means["exact-match"]).toBe(0.75);
    const compared = await fx.call("GET", `/v1/evals/experiments/${a.experimentId}/compare/${b.experimentId}`);
    expect(compared.status).toBe(200);
    const body = await json<{ regressions: unknown[]; improvements: unknown[]; scorers: unknown[] }>(compared);
    expect(body.regressions).toEqual([{ caseId: "spain", scorer: "exact-match", before: 1, after: 0, delta: -1 }]);
    expect(body.improvements).toEqual([]);
    expect(body.scorers).toEqual([{ scorer: "exact-match", a: 1, b: 0.75, delta: -0.25 }]);
  });

  it("a resume of a finished experiment re-scores nothing and starts no task", async () => {
    const fx = await evalsFixture();
    await upload(fx, "geo");
    const done = await runToEnd(fx, { dataset: "geo", scorers: ["exact-match", "turns=5"] });
    const tasks = (await fx.store.listTasks({ principal: "acme" })).tasks.length;
    const scored = await Promise.all(done.cases.map(async (c) => (await fx.store.read(c.taskId)).length));
    const resumed = await fx.call("POST", `/v1/evals/experiments/${done.experimentId}/resume`, {
      body: { scorers: ["turns=5", "exact-match"] },
    });
    expect(resumed.status).toBe(202);
    const again = await finished(fx, done.experimentId);
    expect(again.cases).toEqual(done.cases);
    expect(again.means).toEqual(done.means);
    expect((await fx.store.listTasks({ principal: "acme" })).tasks).toHaveLength(tasks);
    expect(await Promise.all(done.cases.map(async (c) => (await fx.store.read(c.taskId)).length))).toEqual(scored);
    // Other scorers than the experiment's: a 400, nothing runs.
    const other = await fx.call("POST", `/v1/evals/experiments/${done.experimentId}/resume`, {
      body: { scorers: ["exact-match"] },
    });
    expect(other.status).toBe(400);
    expect((await json<{ error: { details: { path: string } } }>(other)).error.details.path).toBe("body.scorers");
  });

  it("refuses an unknown agent (409), an unknown dataset (404), cost= without prices and bad scorers or gates (400)", async () => {
    const fx = await evalsFixture();
    await upload(fx, "geo");
    const unknownAgent = await start(fx, { dataset: "geo", agent: "nobody", scorers: ["exact-match"] });
    expect(unknownAgent.status).toBe(409);
    expect((await json<{ error: { code: string } }>(unknownAgent)).error.code).toBe("UnknownAgent");
    expect((await start(fx, { dataset: "nope", scorers: ["exact-match"] })).status).toBe(404);
    const cost = await start(fx, { dataset: "geo", scorers: ["cost=0.5"] });
    expect(cost.status).toBe(400);
    expect((await json<{ error: { message: string } }>(cost)).error.message).toMatch(/no(ne)? prices|has none/);
    for (const [body, path] of [
      [{ dataset: "geo", scorers: ["bogus"] }, "body.scorers.0"],
      [{ dataset: "geo", scorers: ["exact-match", "turns=x"] }, "body.scorers.1"],
      [{ dataset: "geo", scorers: ["exact-match", "exact-match"] }, "body.scorers.1"],
      [{ dataset: "geo", scorers: ["exact-match"], gates: ["exact-match ~ 1"] }, "body.gates.0"],
      [{ dataset: "geo", scorers: ["exact-match"], gates: ["includes >= 1"] }, "body.gates.0"],
      [{ dataset: "geo", scorers: ["exact-match"], concurrency: 0 }, "body.concurrency"],
      [{ dataset: "geo", scorers: ["exact-match"], concurrency: 100 }, "body.concurrency"],
      [{ dataset: "geo", scorers: ["exact-match"], extra: 1 }, "body.extra"],
      [{ dataset: "geo", scorers: [] }, "body.scorers"],
    ] as const) {
      const response = await start(fx, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await json<{ error: { details: { path: string } } }>(response)).error.details.path).toBe(path);
    }
    expect(await json(await fx.call("GET", "/v1/evals/experiments"))).toEqual({ experiments: [] });
  });

  it("caps concurrency at the principal's concurrentTasks quota and prices cost= with the quota prices", async () => {
    const fx = await evalsFixture({
      quotas: { default: { concurrentTasks: 2 }, prices: { "geo-": { input: 1, output: 1 } } },
    });
    await upload(fx, "geo");
    const over = await start(fx, { dataset: "geo", scorers: ["exact-match"], concurrency: 3 });
    expect(over.status).toBe(400);
    expect((await json<{ error: { message: string } }>(over)).error.message).toContain("concurrentTasks");
    const result = await runToEnd(fx, { dataset: "geo", scorers: ["cost=1"], concurrency: 2 });
    expect(result.means).toEqual({ cost: 1 });
  });

  it("runs one experiment per principal at a time (429), and the server's shutdown parks its tasks", async () => {
    const shutdown = new AbortController();
    const fx = await evalsFixture({ evals: { shutdown: shutdown.signal } });
    await upload(fx, "geo");
    await upload(fx, "geo", DATASET, fx.tokens.mallory);
    const first = await start(fx, { dataset: "geo", agent: "slow", scorers: ["exact-match"], concurrency: 2 });
    expect(first.status).toBe(202);
    const { experimentId } = await json<{ experimentId: string }>(first);
    const busy = await start(fx, { dataset: "geo", scorers: ["exact-match"] });
    expect(busy.status).toBe(429);
    expect(busy.headers.get("retry-after")).not.toBeNull();
    expect((await json<{ error: { code: string } }>(busy)).error.code).toBe("RateLimited");
    // Resuming it while it runs is the same 429; another principal is not held up.
    const resume = await fx.call("POST", `/v1/evals/experiments/${experimentId}/resume`, {
      body: { scorers: ["exact-match"] },
    });
    expect(resume.status).toBe(429);
    expect(
      (await start(fx, { dataset: "geo", agent: "slow", scorers: ["exact-match"] }, fx.tokens.mallory)).status,
    ).toBe(202);
    const running = await until(async () => {
      const result = await json<Result>(await fx.call("GET", `/v1/evals/experiments/${experimentId}`));
      return result.cases.filter((c) => c.status === "running").length === 2 ? result : undefined;
    }, "two cases running");
    expect(running.running).toBe(true);

    shutdown.abort();
    const stopped = await finished(fx, experimentId);
    const started = stopped.cases.filter((c) => c.status !== "not-started");
    expect(started).toHaveLength(2);
    for (const c of started) {
      const task = await fx.store.getTask(c.taskId);
      expect(task.summary.parkedReason).toBe("shutdown");
    }
    // The stopping node starts none.
    expect((await start(fx, { dataset: "geo", scorers: ["exact-match"] })).status).toBe(503);
  });

  it("outlives the token that started it; cancelling its tasks (any token of the principal) ends it", async () => {
    const fx = await evalsFixture();
    await upload(fx, "geo", DATASET.split("\n").slice(0, 2).join("\n"));
    const temporary = await fx.tokenStore.create({ principal: "acme", actorId: "ci" });
    const started = await start(fx, { dataset: "geo", agent: "slow", scorers: ["exact-match"] }, temporary.token);
    expect(started.status).toBe(202);
    const { experimentId } = await json<{ experimentId: string }>(started);
    await fx.tokenStore.revoke(temporary.record.tokenId);
    expect((await fx.call("GET", "/v1/evals/experiments", { token: temporary.token })).status).toBe(401);
    expect((await fx.call("GET", "/v1/evals/experiments?summary=true", { token: temporary.token })).status).toBe(401);
    expect((await fx.call("GET", "/v1/evals/experiments?summary=true", { token: null })).status).toBe(401);
    const running = await until(async () => {
      const result = await json<Result>(await fx.call("GET", `/v1/evals/experiments/${experimentId}`));
      return result.cases.every((c) => c.status === "running") ? result : undefined;
    }, "both cases running");
    expect(running.running).toBe(true);
    for (const c of running.cases) {
      const cancelled = await fx.call("POST", `/v1/tasks/${c.taskId}/cancel`, { token: fx.tokens.bob, body: {} });
      expect(cancelled.status).toBe(200);
    }
    const ended = await finished(fx, experimentId);
    expect(ended.cases.map((c) => c.status)).toEqual(["cancelled", "cancelled"]);
    expect(ended.means).toEqual({ "exact-match": 0 });
  });

  it("validates the new limits where they are given", () => {
    const base = {
      store: new MemoryStore(),
      agents: createAgentRegistry({ default: geoAgent("A").agent }),
      ingress: createTokenIngress(new MemoryTokenStore()),
    };
    for (const limits of [
      { maxDatasetBodyBytes: 0 },
      { maxDatasetBodyBytes: 1.5 },
      { maxExperimentConcurrency: 0 },
      { maxExperimentConcurrency: 257 },
    ])
      expect(() => createApp({ ...base, limits }), JSON.stringify(limits)).toThrow(
        /limits\.(maxDatasetBodyBytes|maxExperimentConcurrency)/,
      );
    expect(() => createApp({ ...base, evals: { shutdown: "soon" } } as unknown as AppOptions)).toThrow(
      /evals\.shutdown/,
    );
    expect(createApp({ ...base, limits: { maxDatasetBodyBytes: 1024, maxExperimentConcurrency: 2 } })).toBeDefined();
  });
});
