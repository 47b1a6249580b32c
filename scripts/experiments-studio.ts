/**
 * For console-screenshots.ts: the studio's experiment views need two runs of one dataset that
 * differ, which the CLI's single scripted model cannot give. This serves the console in process
 * (`serve()` over SQLite in a temporary folder) with the evals tests' geography agent in two
 * variants (B gets Spain wrong), saves their dataset and runs it once on each, so the list, one
 * experiment and the comparison have something true to show.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import { DATASET, geoAgent } from "../packages/evals/src/experiments/experiment.fixture.ts";
import { webConsole } from "../packages/server/src/console/console-protocol.ts";
import { SqliteTokenStore } from "../packages/server/src/ingress/sqlite-token-store.ts";
import { serve } from "../packages/server/src/node/serve.ts";
import { bearerJson } from "../packages/server/src/test-support/bearer-json.ts";
import { buildConsole } from "./build-console.ts";
import { until } from "./studio-serve.ts";

/** A served console with two finished experiments: where, its token, their ids, and its end. */
export interface ExperimentsStudio {
  url: string;
  token: string;
  baseline: string;
  candidate: string;
  close(): Promise<void>;
}

export async function serveExperiments(): Promise<ExperimentsStudio> {
  // Served from the sources: the studio's bundle is built from the modules as they are now.
  await buildConsole();
  const dir = mkdtempSync(join(tmpdir(), "sema-studio-evals-shot-"));
  const path = join(dir, "sema.db");
  const store = new SqliteStore({ path });
  const tokens = new SqliteTokenStore({ path });
  const serving = await serve({
    protocols: [webConsole()],
    store,
    tokens,
    agents: createAgentRegistry({ geo: geoAgent("A").agent, "geo-b": geoAgent("B").agent }, "geo"),
    port: 0,
    workers: false,
  });
  const close = async () => {
    await serving.close({ deadlineMs: 2000 });
    await store.close();
    await tokens.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const token = (await tokens.create({ principal: "local", actorId: "dana" })).token;
    const call = <T>(route: string, body?: unknown, raw?: string) =>
      bearerJson<T>(serving.url, token, route, raw !== undefined ? { raw } : body === undefined ? {} : { body });
    await call("/v1/evals/datasets/geo", undefined, DATASET);
    const run = async (agent: string, name: string) => {
      const { experimentId } = await call<{ experimentId: string }>("/v1/evals/experiments", {
        dataset: "geo",
        agent,
        name,
        scorers: ["exact-match", "includes"],
      });
      await until(`experiment ${name}`, async () =>
        (await call<{ running: boolean }>(`/v1/evals/experiments/${experimentId}`)).running ? undefined : true,
      );
      return experimentId;
    };
    const baseline = await run("geo", "baseline");
    const candidate = await run("geo-b", "candidate");
    return { url: serving.url, token, baseline, candidate, close };
  } catch (error) {
    await close();
    throw error;
  }
}
