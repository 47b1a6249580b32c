/**
 * Experiments over HTTP (docs/guide/evals.md#over-http): `/v1/evals/experiments` (run a saved
 * dataset against a served agent on this node, resume it, read its results, compare two); the
 * datasets are eval-datasets.ts. Each is `@sema-agent/evals` with the caller's principal: another principal's
 * dataset, experiment or task is not found, exactly like an unknown one, and whatever is made is
 * the caller's. An experiment runs as the principal's tasks, under its quotas.
 */
import type { ModelPrice } from "@sema-agent/core";
import { ConfigError, InvalidInputError } from "@sema-agent/core/protocol";
import { checkScorers, type Scorer } from "@sema-agent/core/scoring";
import {
  checkGates,
  compareExperiments,
  createExperiment,
  type Gate,
  listExperiments,
  loadDataset,
  loadExperiment,
  loadExperimentRecord,
  parseGate,
  runExperiment,
  scorerFromSpec,
} from "@sema-agent/evals";
import { ExperimentRuns } from "../evals/experiment-runs.ts";
import { badRequest, HttpError } from "../http-error.ts";
import type { Caller } from "../ingress/caller.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import {
  CompareParams,
  ExperimentAccepted,
  ExperimentComparisonBody,
  ExperimentList,
  ExperimentListQuery,
  ExperimentParams,
  ExperimentQuery,
  ExperimentResultBody,
  ResumeExperimentRequest,
  StartExperimentRequest,
} from "../schemas/evals.ts";
import type { RouteDeps } from "./deps.ts";

/** Cases an experiment runs at once when the request names no number. */
const DEFAULT_CONCURRENCY = 4;

/** The scorers `specs` name; a bad one is a 400 naming it (`body.scorers.1`). */
function scorersOf(specs: readonly string[], prices: Readonly<Record<string, ModelPrice>> | undefined): Scorer[] {
  const scorers = specs.map((spec, i) => {
    const path = `body.scorers.${i}`;
    if (prices === undefined && spec.startsWith("cost="))
      throw badRequest(
        `${path}: cost= needs prices, and this server has none (configure quota prices to cost turns)`,
        path,
      );
    try {
      return scorerFromSpec(spec, prices === undefined ? {} : { prices });
    } catch (error) {
      if (error instanceof ConfigError) throw badRequest(`${path}: ${error.problems[0]?.message ?? "invalid"}`, path);
      throw error;
    }
  });
  try {
    checkScorers(scorers, "scorers");
  } catch (error) {
    if (error instanceof ConfigError) {
      const index = /\[(\d+)\]/.exec(error.problems[0]?.path ?? "")?.[1] ?? "0";
      throw badRequest(
        `body.scorers.${index}: ${error.problems[0]?.message ?? "repeats a scorer"}`,
        `body.scorers.${index}`,
      );
    }
    throw error;
  }
  return scorers;
}

/** The gates `texts` give, each on one of `scorers`; a bad one is a 400 naming `where`. */
function gatesOf(texts: readonly string[], scorers: readonly string[], where: (i: number) => string): Gate[] {
  return texts.map((text, i) => {
    let gate: Gate;
    try {
      gate = parseGate(text);
    } catch (error) {
      if (error instanceof ConfigError)
        throw badRequest(`${where(i)}: ${error.problems[0]?.message ?? "is not a gate"}`, where(i));
      throw error;
    }
    if (!scorers.includes(gate.scorer))
      throw badRequest(
        `${where(i)}: ${gate.scorer} is not a scorer of the experiment (${scorers.join(", ")})`,
        where(i),
      );
    return gate;
  });
}

/** The served agent `name` (default: the default agent); a 409 `UnknownAgent` when not served. */
function servedAgent(deps: RouteDeps, name: string | undefined) {
  const named = name ?? deps.agents.defaultName;
  const agent = deps.agents.get(named);
  if (agent === undefined)
    throw new HttpError(409, "UnknownAgent", `the agent ${named} is not served here`, {
      details: { agent: named, agents: deps.agents.names() },
    });
  return { name: named, agent };
}

/** Cases at once: as asked, or the default, within the server's and the principal's caps (400 above). */
async function concurrencyFor(deps: RouteDeps, caller: Caller, asked: number | undefined): Promise<number> {
  const quota = (await deps.quotasFor?.(caller.principal))?.concurrentTasks;
  const cap = Math.min(deps.limits.maxExperimentConcurrency, quota ?? Number.POSITIVE_INFINITY);
  if (asked === undefined) return Math.min(DEFAULT_CONCURRENCY, cap);
  if (asked > cap)
    throw badRequest(
      `body.concurrency: at most ${cap} (${quota !== undefined && quota <= deps.limits.maxExperimentConcurrency ? "the principal's concurrentTasks quota" : "maxExperimentConcurrency"})`,
      "body.concurrency",
      { max: cap },
    );
  return asked;
}

export function evalRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store } = deps;
  const runs = new ExperimentRuns(deps.experiments?.shutdown);
  const prices = () => deps.quotas?.prices;
  // The legs' live deltas go to this app's hub (its event streams), unless the host says where.
  const harness = {
    ...(deps.hub === undefined ? {} : { emit: deps.hub.publish }),
    ...deps.experiments?.harness,
  };

  /** Run an experiment (new, or resumed when `experimentId` names one) in the background. */
  function startRun(
    caller: Caller,
    input: {
      experimentId: string;
      agent: ReturnType<typeof servedAgent>;
      dataset: Awaited<ReturnType<typeof loadDataset>>;
      scorers: Scorer[];
      concurrency: number;
    },
    slot: ReturnType<ExperimentRuns["reserve"]>,
  ): void {
    const given = prices();
    slot.start(input.experimentId, (signal) =>
      runExperiment({
        store,
        agent: input.agent.agent,
        agentName: input.agent.name,
        // The served agent's model, recorded on every case's task (as a worker's task records it).
        model: input.agent.agent.model.id,
        dataset: input.dataset,
        scorers: input.scorers,
        principal: caller.principal,
        experimentId: input.experimentId,
        concurrency: input.concurrency,
        harness,
        ...(deps.experiments?.driving === undefined ? {} : { driving: deps.experiments.driving }),
        signal,
        ...(given === undefined ? {} : { prices: given }),
      }),
    );
  }

  return [
    route({
      method: "post",
      path: "/v1/evals/experiments",
      operationId: "startExperiment",
      summary: "Run a dataset against a served agent on this node, scoring every case",
      tag: "evals",
      body: StartExperimentRequest,
      responses: {
        202: {
          description:
            "Started in the background as the caller's tasks, under its quotas; its record is written before any task starts, so `GET /v1/evals/experiments/{experimentId}` shows it at once (`running` until it ends). One experiment per principal runs on a node at a time (429 with `Retry-After`). Stopping the node stops it (its tasks park as shut down): resume it.",
          schema: ExperimentAccepted,
        },
      },
      errors: [400, 401, 404, 409, 413, 415, 429, 503],
      async handler({ body, caller, context }) {
        const scorers = scorersOf(body.scorers, prices());
        const names = scorers.map((scorer) => scorer.name);
        const gates = gatesOf(body.gates ?? [], names, (i) => `body.gates.${i}`);
        const agent = servedAgent(deps, body.agent);
        const concurrency = await concurrencyFor(deps, caller, body.concurrency);
        const dataset = await loadDataset(store, caller.principal, body.dataset, body.version);
        const slot = runs.reserve(caller.principal);
        let experimentId: string;
        try {
          const record = await createExperiment(store, {
            principal: caller.principal,
            agent: agent.name,
            model: agent.agent.model.id,
            dataset,
            scorers: names,
            ...(body.name === undefined ? {} : { name: body.name }),
          });
          experimentId = record.experimentId;
        } catch (error) {
          slot.release();
          throw error;
        }
        startRun(caller, { experimentId, agent, dataset, scorers, concurrency }, slot);
        context.header("Location", `/v1/evals/experiments/${experimentId}`);
        return context.json(
          {
            experimentId,
            ...(gates.length === 0 ? {} : { gates: gates.map((g) => `${g.scorer} ${g.op} ${g.threshold}`) }),
          },
          202,
        );
      },
    }),
    route({
      method: "post",
      path: "/v1/evals/experiments/:experimentId/resume",
      operationId: "resumeExperiment",
      summary: "Go on with an experiment where it stopped: unfinished cases run on, finished ones are only scored",
      tag: "evals",
      params: ExperimentParams,
      body: ResumeExperimentRequest,
      responses: {
        202: {
          description:
            "Running again in the background over the dataset it ran (by name and version) with the same scorers (any other set: 400). No case's task starts twice, and a verdict already recorded is not asked again.",
          schema: ExperimentAccepted,
        },
      },
      errors: [400, 401, 404, 409, 413, 415, 429, 503],
      async handler({ params, body, caller, context }) {
        const record = await loadExperimentRecord(store, caller.principal, params.experimentId);
        const scorers = scorersOf(body.scorers, prices());
        const names = scorers.map((scorer) => scorer.name);
        if ([...names].sort().join("\n") !== [...record.scorers].sort().join("\n"))
          throw badRequest(
            `body.scorers: experiment ${record.experimentId} scores with ${record.scorers.join(", ")}: resume it with the same scorers`,
            "body.scorers",
          );
        const agent = servedAgent(deps, record.agent);
        const concurrency = await concurrencyFor(deps, caller, body.concurrency);
        const { name, version } = record.dataset;
        if (name === undefined || version === undefined)
          throw new InvalidInputError(
            `experiment ${record.experimentId} ran a dataset that was not saved by name: resume it where it ran (sema eval run --resume)`,
          );
        const dataset = await loadDataset(store, caller.principal, name, version);
        if (dataset.digest !== record.dataset.digest)
          throw new InvalidInputError(
            `experiment ${record.experimentId} ran other cases than ${name} version ${version} has now`,
          );
        const slot = runs.reserve(caller.principal);
        startRun(caller, { experimentId: record.experimentId, agent, dataset, scorers, concurrency }, slot);
        context.header("Location", `/v1/evals/experiments/${record.experimentId}`);
        return context.json({ experimentId: record.experimentId }, 202);
      },
    }),
    route({
      method: "get",
      path: "/v1/evals/experiments",
      operationId: "listExperiments",
      summary: "The caller's experiments",
      tag: "evals",
      query: ExperimentListQuery,
      responses: {
        200: {
          description:
            "Oldest first, each with whether it runs on this node. With `?summary=true`, `summaries`: each one's results as `GET /v1/evals/experiments/{experimentId}` gives them, without their cases (one request for a list that shows every experiment's means).",
          schema: ExperimentList,
        },
      },
      errors: [400, 401, 429],
      async handler({ query, caller, context }) {
        const listed = await listExperiments(store, caller.principal);
        const experiments = listed.map((record) => ({
          experimentId: record.name,
          name: String(record.meta.name ?? ""),
          agent: String(record.meta.agent ?? ""),
          dataset: String(record.meta.dataset ?? ""),
          cases: Number(record.meta.cases ?? 0),
          createdAt: record.createdAt,
          running: runs.isRunning(caller.principal, record.name),
        }));
        if (query.summary !== "true") return context.json({ experiments });
        const given = prices();
        const summaries = await Promise.all(
          listed.map(async (record) => {
            const { cases: _cases, ...result } = await loadExperiment(
              store,
              caller.principal,
              record.name,
              given === undefined ? {} : { prices: given },
            );
            const failure = runs.failure(caller.principal, record.name);
            return {
              ...result,
              running: runs.isRunning(caller.principal, record.name),
              ...(failure === undefined ? {} : { failure }),
            };
          }),
        );
        return context.json({ experiments, summaries });
      },
    }),
    route({
      method: "get",
      path: "/v1/evals/experiments/:experimentId",
      operationId: "getExperiment",
      summary: "An experiment's results as the store has them now, checked against gates if asked",
      tag: "evals",
      params: ExperimentParams,
      query: ExperimentQuery,
      responses: {
        200: {
          description:
            "Each case's status, verdicts, turns, tokens, cost (at the server's quota prices) and time; per scorer the mean; the totals; whether it runs on this node. With `?gate=` (repeated), `gateFailures`: the gates the results fail.",
          schema: ExperimentResultBody,
        },
      },
      errors: [400, 401, 404, 429],
      async handler({ params, caller, context }) {
        const given = prices();
        const result = await loadExperiment(
          store,
          caller.principal,
          params.experimentId,
          given === undefined ? {} : { prices: given },
        );
        const texts = context.req.queries("gate") ?? [];
        const gates = gatesOf(texts, result.scorers, () => "query.gate");
        const failure = runs.failure(caller.principal, params.experimentId);
        return context.json({
          ...result,
          running: runs.isRunning(caller.principal, params.experimentId),
          ...(failure === undefined ? {} : { failure }),
          ...(texts.length === 0 ? {} : { gateFailures: checkGates(result, gates) }),
        });
      },
    }),
    route({
      method: "get",
      path: "/v1/evals/experiments/:experimentId/compare/:otherExperimentId",
      operationId: "compareExperiments",
      summary: "What changed from one experiment of the caller's (the baseline) to another",
      tag: "evals",
      params: CompareParams,
      responses: {
        200: {
          description:
            "Per scorer both have, the two means and the change; the cases (by case id) whose score fell, worst first, and rose. Either experiment unknown, or another principal's: 404.",
          schema: ExperimentComparisonBody,
        },
      },
      errors: [400, 401, 404, 429],
      async handler({ params, caller, context }) {
        const a = await loadExperiment(store, caller.principal, params.experimentId);
        const b = await loadExperiment(store, caller.principal, params.otherExperimentId);
        return context.json(compareExperiments(a, b));
      },
    }),
  ];
}
