/**
 * An experiment on a node whose worker pool runs beside it (`serve` with `workers`), over a real
 * SQLite file: the pool claims every runnable task as soon as it is created, the experiment's
 * cases included. Before the pool left the experiment's tasks alone, a claim took the case's live
 * lease again under the holder both share, both legs stopped (`LeaseLost`) and the experiment ended
 * with its cases still running and unscored. Polls with a deadline.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import { afterAll, describe, expect, it } from "vitest";
import { DATASET, geoAgent } from "../../../evals/src/experiments/experiment.fixture.ts";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { type BearerJsonInit, bearerJson } from "../test-support/bearer-json.ts";
import { until } from "../test-support/until.ts";

const dir = mkdtempSync(join(tmpdir(), "sema-exp-workers-"));
let serving: Serving | undefined;
let store: SqliteStore | undefined;
let tokens: SqliteTokenStore | undefined;

afterAll(async () => {
  await serving?.close({ deadlineMs: 2000 });
  await store?.close();
  await tokens?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface CaseView {
  caseId: string;
  taskId: string;
  status: string;
  scores: Record<string, { value: number }>;
  error?: string;
}

describe("an experiment on a node with its worker pool", () => {
  it("runs every case to the end and scores it, the case's later inputs sent at their turn", async () => {
    const path = join(dir, "sema.db");
    store = new SqliteStore({ path });
    tokens = new SqliteTokenStore({ path });
    serving = await serve({
      store,
      tokens,
      agents: createAgentRegistry({ geo: geoAgent("A").agent }, "geo"),
      port: 0,
      workers: { pollMs: 5 },
    });
    const token = (await tokens.create({ principal: "local", actorId: "dana" })).token;
    const call = <T>(route: string, init: BearerJsonInit = {}) => bearerJson<T>(serving?.url ?? "", token, route, init);
    await call("/v1/evals/datasets/geo", { raw: DATASET });
    // Several runs: each is a fresh race between the pool's claims and the experiment's legs.
    for (let round = 0; round < 4; round++) {
      const { experimentId } = await call<{ experimentId: string }>("/v1/evals/experiments", {
        body: { dataset: "geo", agent: "geo", name: `run ${round}`, scorers: ["exact-match"] },
      });
      await until(
        async () => !(await call<{ running: boolean }>(`/v1/evals/experiments/${experimentId}`)).running,
        `experiment ${round} to end`,
        30_000,
      );
      const { cases } = await call<{ cases: CaseView[] }>(`/v1/evals/experiments/${experimentId}`);
      expect(cases.map((c) => [c.caseId, c.status, c.scores["exact-match"]?.value, c.error])).toEqual([
        ["portugal", "completed", 1, undefined],
        ["france", "completed", 1, undefined],
        ["spain", "completed", 1, undefined],
        ["italy", "completed", 1, undefined],
      ]);
      // The experiment's own legs ran the case: its input due after turn 1 is in the log, once.
      const italy = cases.find((c) => c.caseId === "italy");
      const events = (await store.read(italy?.taskId ?? "")) ?? [];
      const sent = events.filter(
        (e) =>
          e.type === "human_input" && e.inputId.startsWith("eval-") && JSON.stringify(e).includes("Answer in Italian"),
      );
      expect(sent).toHaveLength(1);
    }
  }, 120_000);
});
