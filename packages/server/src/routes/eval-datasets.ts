/**
 * Datasets over HTTP (docs/guide/evals.md#over-http): `/v1/evals/datasets` — save one from a JSON
 * Lines file or from the caller's tasks, list them, read one back. `@sema-agent/evals` with the
 * caller's principal: another principal's dataset or task is not found, exactly like an unknown
 * one, and whatever is saved is the caller's.
 */
import {
  datasetFromTasks,
  formatDataset,
  listDatasets,
  loadDataset,
  parseDataset,
  saveDataset,
} from "@sema-agent/evals";
import { HttpError } from "../http-error.ts";
import { jsonShapeError } from "../json-limits.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { DatasetFromTasksRequest, DatasetList, DatasetParams, DatasetQuery, DatasetSaved } from "../schemas/evals.ts";
import type { RouteDeps } from "./deps.ts";
import { EXPORT_MEDIA_TYPE } from "./time-travel.ts";

/** A dataset file's media types: JSON Lines, under either name (as an import takes them). */
const DATASET_MEDIA_TYPES = [EXPORT_MEDIA_TYPE, "application/x-ndjson"] as const;

/**
 * A dataset file held to the rules of a JSON body, line by line, before it is parsed: no line
 * nested deeper than `maxJsonDepth`, no reserved key (`__proto__`, …). A 400 naming the line.
 */
function checkLines(text: string, maxDepth: number): void {
  text.split("\n").forEach((line, i) => {
    const error = line.trim() === "" ? undefined : jsonShapeError(line, maxDepth, `line ${i + 1}`);
    if (error !== undefined)
      throw new HttpError(400, "InvalidInput", `dataset, line ${i + 1}: ${error.message}`, {
        details: { ...error.details, line: i + 1 },
      });
  });
}

export function evalDatasetRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { store } = deps;
  return [
    route({
      method: "post",
      path: "/v1/evals/datasets/:name",
      operationId: "saveDataset",
      summary: "Save a dataset (a JSON Lines file, or made from the caller's tasks) as the next version of a name",
      tag: "evals",
      params: DatasetParams,
      body: DatasetFromTasksRequest,
      textBody: {
        mediaTypes: DATASET_MEDIA_TYPES,
        limit: "maxDatasetBodyBytes",
        description:
          "A dataset file (JSON Lines, one case a line: `sema eval dataset` writes them), or as `application/json` the caller's tasks to make one of. Up to `maxDatasetBodyBytes` (default 8 MiB; 413 above). Checked whole before anything is saved: a bad line is a 400 naming it.",
      },
      responses: {
        201: {
          description: "Saved, the caller's: the name's new version (1 for a new name), with its digest.",
          schema: DatasetSaved,
        },
      },
      errors: [400, 401, 404, 413, 415, 429],
      async handler({ params, body, text, caller, context }) {
        if (text !== "") checkLines(text, deps.limits.maxJsonDepth);
        const dataset =
          text !== ""
            ? await parseDataset(text)
            : await datasetFromTasks(store, body.fromTasks, { principal: caller.principal });
        const saved = await saveDataset(store, caller.principal, params.name, dataset);
        context.header("Location", `/v1/evals/datasets/${params.name}?version=${saved.version}`);
        return context.json(
          {
            name: saved.name,
            version: saved.version,
            cases: saved.cases.length,
            digest: saved.digest,
            createdAt: saved.createdAt,
          },
          201,
        );
      },
    }),
    route({
      method: "get",
      path: "/v1/evals/datasets",
      operationId: "listDatasets",
      summary: "The caller's datasets",
      tag: "evals",
      responses: { 200: { description: "The latest version of each, by name.", schema: DatasetList } },
      errors: [401, 429],
      async handler({ caller, context }) {
        const listed = await listDatasets(store, caller.principal);
        return context.json({
          datasets: listed.map((record) => ({
            name: record.name,
            version: record.version,
            cases: Number(record.meta.cases ?? 0),
            digest: String(record.meta.digest ?? ""),
            createdAt: record.createdAt,
          })),
        });
      },
    }),
    route({
      method: "get",
      path: "/v1/evals/datasets/:name",
      operationId: "getDataset",
      summary: "A dataset of the caller's as a JSON Lines file",
      tag: "evals",
      params: DatasetParams,
      query: DatasetQuery,
      responses: {
        200: {
          description:
            "Its cases, one canonical JSON object a line (what `parseDataset` reads back, to the same digest). The version is in `x-sema-dataset-version`.",
          contentType: EXPORT_MEDIA_TYPE,
        },
      },
      errors: [400, 401, 404, 429],
      async handler({ params, query, caller, context }) {
        const dataset = await loadDataset(store, caller.principal, params.name, query.version);
        return context.body(formatDataset(dataset.cases), 200, {
          "content-type": `${EXPORT_MEDIA_TYPE}; charset=utf-8`,
          "content-disposition": `attachment; filename="${params.name}.jsonl"`,
          "x-sema-dataset-version": String(dataset.version),
        });
      },
    }),
  ];
}
