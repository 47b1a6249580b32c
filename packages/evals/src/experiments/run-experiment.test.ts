import { MemoryStore } from "@sema-agent/core";
import { isSemaError } from "@sema-agent/core/protocol";
import { dyingStore } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { parseDataset } from "../datasets/parse-dataset.ts";
import { exactMatch } from "../scorers/exact-match.ts";
import { dataset, geoAgent, scorers } from "./experiment.fixture.ts";
import { listExperiments } from "./experiment-record.ts";
import { loadExperiment } from "./experiment-results.ts";
import { runExperiment } from "./run-experiment.ts";

const scoresOf = (result: Awaited<ReturnType<typeof runExperiment>>) =>
  Object.fromEntries(result.cases.map((c) => [c.caseId, c.scores]));

describe("runExperiment", () => {
  it("runs every case as a task of the agent, scores it, and gives the means", async () => {
    const store = new MemoryStore();
    const { agent, model } = geoAgent();
    const result = await runExperiment({
      store,
      agent,
      dataset: await dataset(),
      scorers: scorers(),
      name: "baseline",
    });
    expect(result).toMatchObject({
      name: "baseline",
      agent: "default",
      scorers: ["exact-match", "includes", "tool-trajectory"],
    });
    expect(result.means).toEqual({ "exact-match": 1, includes: 1, "tool-trajectory": 1 });
    expect(result.totals).toMatchObject({ cases: 4, finished: 4, completed: 4, turns: 8 });
    for (const c of result.cases) {
      expect(c.status).toBe("completed");
      const record = await store.getTask(c.taskId);
      expect(record.principal).toBe("local");
      const [created] = await store.read(c.taskId);
      expect(created).toMatchObject({
        type: "task_created",
        metadata: { eval: { experiment: result.experimentId, case: c.caseId } },
      });
    }
    // The case's later input reached the model's second turn, and only Italy's.
    const steered = model.requests.filter((r) => JSON.stringify(r.transcript).includes("Answer in Italian"));
    expect(steered).toHaveLength(1);
    expect(JSON.stringify(steered[0]?.transcript)).toContain("Italy");
    // What the store says later is what the run returned.
    expect(await loadExperiment(store, "local", result.experimentId)).toEqual(result);
  });

  it("gives the same results one case at a time as eight at once", async () => {
    const one = await runExperiment({
      store: new MemoryStore(),
      agent: geoAgent().agent,
      dataset: await dataset(),
      scorers: scorers(),
      concurrency: 1,
    });
    const eight = await runExperiment({
      store: new MemoryStore(),
      agent: geoAgent().agent,
      dataset: await dataset(),
      scorers: scorers(),
      concurrency: 8,
    });
    expect(scoresOf(eight)).toEqual(scoresOf(one));
    expect(eight.means).toEqual(one.means);
  });

  it("resumes after the host dies at any append: no case's task started twice, no verdict recorded twice", async () => {
    const baseline = await runExperiment({
      store: new MemoryStore(),
      agent: geoAgent().agent,
      dataset: await dataset(),
      scorers: scorers(),
    });
    let points = 0;
    for (const when of ["before", "after"] as const) {
      for (let n = 0; ; n++) {
        const inner = new MemoryStore();
        const dying = dyingStore(inner, { appendsBeforeDeath: n, when, countCreates: true });
        const first = runExperiment({
          store: dying,
          agent: geoAgent().agent,
          dataset: await dataset(),
          scorers: scorers(),
          concurrency: 2,
          harness: { holder: { id: "first-host" } },
        });
        const died = await first.then(
          () => false,
          (error: unknown) => {
            if (isSemaError(error) || !(error instanceof Error) || error.name !== "SimulatedDeath") throw error;
            return true;
          },
        );
        if (!died) break; // past the last append: the run finished undisturbed
        points++;
        const [record] = await listExperiments(inner, "local");
        if (record === undefined) throw new Error(`n=${n} ${when}: no experiment recorded`);
        const resumed = await runExperiment({
          store: inner,
          agent: geoAgent().agent,
          dataset: await dataset(),
          scorers: scorers(),
          experimentId: record.name,
          // Another process, which knows the first one died: its leases are taken over at once.
          harness: { holder: { id: "second-host" }, holderDied: (holder) => holder.id === "first-host" },
        });
        expect(scoresOf(resumed), `n=${n} ${when}`).toEqual(scoresOf(baseline));
        const tasks = (await inner.listTasks({ principal: "local" })).tasks;
        expect(tasks, `n=${n} ${when}`).toHaveLength(4);
        for (const task of tasks) {
          const events = await inner.read(task.taskId);
          expect(events.filter((e) => e.type === "task_created")).toHaveLength(1);
          for (const scorer of ["exact-match", "includes", "tool-trajectory"])
            expect(
              events.filter((e) => e.type === "task_scored" && e.scorer === scorer),
              `n=${n} ${when} ${scorer}`,
            ).toHaveLength(1);
        }
      }
    }
    // Every append of the run was a point of death, twice (before and after it commits).
    expect(points).toBeGreaterThan(40);
  });

  it("stops on its signal, parking what runs, and a resume finishes it", async () => {
    const store = new MemoryStore();
    const stop = new AbortController();
    const stopped = await runExperiment({
      store,
      agent: geoAgent().agent,
      dataset: await dataset(),
      scorers: scorers(),
      concurrency: 1,
      signal: stop.signal,
      onCase: () => stop.abort(),
    });
    expect(stopped.cases.filter((c) => c.status === "not-started").length).toBeGreaterThan(0);
    const done = await runExperiment({
      store,
      agent: geoAgent().agent,
      dataset: await dataset(),
      scorers: scorers(),
      experimentId: stopped.experimentId,
    });
    expect(done.totals.completed).toBe(4);
    expect(done.means["exact-match"]).toBe(1);
  });

  it("waits for a worker that claimed a case's task, then scores it (no case fails on LeaseHeld)", async () => {
    const store = new MemoryStore();
    const acquire = store.acquireLease.bind(store);
    const claimed = new Set<string>();
    const held = new Map<string, string>();
    let refused = 0;
    // A worker sharing the store claims each task the moment it exists; it lets go once the
    // experiment's own leg has met its lease (an explicit point, not a time), which must then wait.
    store.acquireLease = async (taskId, options) => {
      if (!claimed.has(taskId)) {
        claimed.add(taskId);
        held.set(taskId, (await acquire(taskId, { holder: { id: "worker" }, ttlMs: 30_000 })).token);
      }
      try {
        return await acquire(taskId, options);
      } catch (error) {
        const token = held.get(taskId);
        if (token !== undefined) {
          refused++;
          held.delete(taskId);
          await store.releaseLease(taskId, token);
        }
        throw error;
      }
    };
    const result = await runExperiment({
      store,
      agent: geoAgent().agent,
      dataset: await dataset(),
      scorers: scorers(),
      concurrency: 2,
    });
    expect(claimed.size).toBe(4);
    expect(refused).toBe(4);
    expect(result.cases.filter((c) => c.error !== undefined)).toEqual([]);
    expect(result.totals.completed).toBe(4);
    expect(result.means["exact-match"]).toBe(1);
  });

  it("refuses a resume with other cases or scorers, another principal's id, and a bad configuration", async () => {
    const store = new MemoryStore();
    const first = await runExperiment({ store, agent: geoAgent().agent, dataset: await dataset(), scorers: scorers() });
    const other = await parseDataset('{"input":"Capital of Peru?","expected":"Lima"}');
    const base = { store, agent: geoAgent().agent, experimentId: first.experimentId };
    await expect(runExperiment({ ...base, dataset: other, scorers: scorers() })).rejects.toThrow(/ran another dataset/);
    await expect(runExperiment({ ...base, dataset: await dataset(), scorers: [exactMatch()] })).rejects.toThrow(
      /same scorers/,
    );
    await expect(
      runExperiment({ ...base, dataset: await dataset(), scorers: scorers(), principal: "mallory" }),
    ).rejects.toMatchObject({ code: "RecordNotFound" });
    await expect(
      runExperiment({ store, agent: geoAgent().agent, dataset: await dataset(), scorers: scorers(), concurrency: 0 }),
    ).rejects.toMatchObject({ code: "ConfigError" });
    await expect(
      runExperiment({
        store,
        agent: geoAgent().agent,
        dataset: await dataset(),
        scorers: [exactMatch(), exactMatch()],
      }),
    ).rejects.toMatchObject({ code: "ConfigError" });
  });
});
