// @ts-check
// Experiments (GET /v1/evals/experiments…): the caller's list with each one's means, one
// experiment's cases with their scores, input and expected answer, and two compared case by case.
// Links only (`#experiment=…`, `#compare=…&with=…`, `#task=…`): app.js routes, so each view reloads.
import { el } from "./dom.js";
import { CHANGE_TEXT, compareCases, countChanges, deltaText, scoreText } from "./experiments.js";

/**
 * The API's bodies, the fields read here (schemas/evals.ts).
 * @typedef {import("./experiments.js").ExperimentCase & { turns: number, durationMs: number, error?: string, scoreErrors?: Record<string, string> }} CaseResult
 * @typedef {{ experimentId: string, name: string, agent: string, model?: string, dataset: { name?: string, version?: number, digest: string, cases: number }, scorers: string[], cases: CaseResult[], means: Record<string, number>, totals: { cases: number, finished: number, completed: number }, running: boolean, failure?: string }} ExperimentResult
 * @typedef {Omit<ExperimentResult, "cases">} ExperimentSummary an experiment's results without their cases (the list's `?summary=true`)
 * @typedef {{ experimentId: string, name: string, agent: string, dataset: string, cases: number, createdAt: string, running: boolean }} ExperimentListing
 * @typedef {{ scorer: string, a?: number, b?: number, delta?: number }} ScorerMeans
 * @typedef {{ a: { experimentId: string, name: string }, b: { experimentId: string, name: string }, scorers: ScorerMeans[], onlyA: string[], onlyB: string[] }} Comparison
 * @typedef {{ api: import("./api.js").Api, text: (path: string) => Promise<string> }} Deps
 */

const enc = encodeURIComponent;
const experimentPath = (/** @type {string} */ id) => `/v1/evals/experiments/${enc(id)}`;

/** "running", "stopped: <why>" or "finished": what a person asks of a run first. @param {ExperimentSummary} result */
function statusOf(result) {
  if (result.running) return "running";
  if (result.failure !== undefined) return `stopped: ${result.failure}`;
  return result.totals.finished < result.totals.cases ? "incomplete" : "finished";
}

/** "geo v2" (or the digest's first 12 hex when the dataset had no name). @param {ExperimentResult["dataset"]} dataset */
function datasetText(dataset) {
  return dataset.name === undefined
    ? dataset.digest.slice(0, 12)
    : `${dataset.name}${dataset.version === undefined ? "" : ` v${dataset.version}`}`;
}

/** "exact-match 0.75 · includes 1". @param {ExperimentSummary} result */
function meansText(result) {
  const parts = result.scorers.map((scorer) => `${scorer} ${scoreText(result.means[scorer])}`);
  return parts.length === 0 ? "—" : parts.join(" · ");
}

/** The experiment's name as a person reads it: its label, else its id. @param {{ name: string, experimentId: string }} item */
const title = (item) => item.name || item.experimentId;

/** A table with a caption and column headers. @param {string} caption @param {string[]} headers @param {HTMLTableRowElement[]} rows @param {string} className */
function table(caption, headers, rows, className) {
  return el(
    "table",
    { className },
    el("caption", {}, caption),
    el("thead", {}, el("tr", {}, ...headers.map((header) => el("th", { scope: "col" }, header)))),
    el("tbody", {}, ...rows),
  );
}

/**
 * The caller's experiments, newest first, each with its means (one request: the list's
 * `?summary=true`; a server without it is asked for each one), and the compare form's two
 * choices. Whether any of them runs (app.js redraws it then).
 * @param {{ list: HTMLElement, baseline: HTMLSelectElement, candidate: HTMLSelectElement }} parts
 * @param {Deps} deps
 * @returns {Promise<boolean>}
 */
export async function renderExperimentList(parts, deps) {
  const page = await deps.api("GET", "/v1/evals/experiments?summary=true");
  /** @type {ExperimentListing[]} */
  const listed = page.experiments;
  /** @type {ExperimentSummary[]} */
  const results =
    page.summaries !== undefined
      ? [...page.summaries].reverse()
      : await Promise.all([...listed].reverse().map((item) => deps.api("GET", experimentPath(item.experimentId))));
  if (results.length === 0) {
    parts.list.replaceChildren(
      el(
        "p",
        { className: "meta" },
        "No experiments yet. `sema eval run … --server` or POST /v1/evals/experiments starts one.",
      ),
    );
  } else {
    const rows = results.map((result) =>
      el(
        "tr",
        { dataset: { experimentId: result.experimentId } },
        el("th", { scope: "row" }, el("a", { href: `#experiment=${enc(result.experimentId)}` }, title(result))),
        el("td", {}, datasetText(result.dataset)),
        el("td", {}, [result.agent, result.model].filter(Boolean).join(" · ")),
        el(
          "td",
          {},
          el(
            "span",
            { className: "status", dataset: { status: result.running ? "running" : "completed" } },
            statusOf(result),
          ),
        ),
        el("td", {}, meansText(result)),
        el("td", { className: "num" }, String(result.totals.cases)),
      ),
    );
    parts.list.replaceChildren(
      table(
        "Your experiments, newest first",
        ["Experiment", "Dataset", "Agent · model", "Status", "Mean scores", "Cases"],
        rows,
        "experiments",
      ),
    );
  }
  for (const [select, pick] of /** @type {const} */ ([
    [parts.baseline, 1],
    [parts.candidate, 0],
  ])) {
    const kept = select.value;
    select.replaceChildren(
      ...results.map((result) =>
        el(
          "option",
          { value: result.experimentId, dataset: { digest: result.dataset.digest } },
          `${title(result)} (${datasetText(result.dataset)}, ${result.agent})`,
        ),
      ),
    );
    // Default: the newest against the one before it; a choice made before a redraw stays.
    const fallback = results[pick]?.experimentId ?? results[0]?.experimentId ?? "";
    select.value = results.some((result) => result.experimentId === kept) ? kept : fallback;
  }
  return results.some((result) => result.running);
}

/**
 * The dataset's cases by id (GET /v1/evals/datasets/{name}?version=, JSON Lines), for their input
 * and expected answer; none when the dataset had no name or is gone.
 * @param {Deps} deps @param {ExperimentResult["dataset"]} dataset
 * @returns {Promise<Map<string, { input?: string, expected?: unknown }>>}
 */
async function datasetCases(deps, dataset) {
  if (dataset.name === undefined) return new Map();
  const query = dataset.version === undefined ? "" : `?version=${dataset.version}`;
  const text = await deps.text(`/v1/evals/datasets/${enc(dataset.name)}${query}`).catch(() => "");
  /** @type {Map<string, { input?: string, expected?: unknown }>} */
  const cases = new Map();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const item = JSON.parse(line);
    if (typeof item.id === "string") cases.set(item.id, item);
  }
  return cases;
}

/** A score with its reason (and the scorer's error, if it failed). @param {CaseResult | undefined} item @param {string} scorer */
function scoreCell(item, scorer) {
  const score = item?.scores[scorer];
  const error = item?.scoreErrors?.[scorer];
  return el(
    "td",
    { className: "score" },
    el("span", { className: "num" }, scoreText(score?.value)),
    score?.reason === undefined ? undefined : el("span", { className: "reason" }, score.reason),
    error === undefined ? undefined : el("span", { className: "reason error" }, `error: ${error}`),
  );
}

/** An expected answer as text: a string as it is, JSON otherwise. @param {unknown} expected */
const expectedText = (expected) =>
  expected === undefined ? "—" : typeof expected === "string" ? expected : JSON.stringify(expected);

/**
 * One experiment: what ran on what, its means, and each case with its scores, input, expected
 * answer and a link to its task. Whether it runs.
 * @param {{ title: HTMLElement, body: HTMLElement }} parts @param {Deps} deps @param {string} experimentId
 * @returns {Promise<boolean>}
 */
export async function renderExperiment(parts, deps, experimentId) {
  /** @type {ExperimentResult} */
  const result = await deps.api("GET", experimentPath(experimentId));
  const cases = await datasetCases(deps, result.dataset);
  parts.title.textContent = `Experiment ${title(result)}`;
  const rows = result.cases.map((item) => {
    const given = cases.get(item.caseId);
    return el(
      "tr",
      { dataset: { caseId: item.caseId } },
      el("th", { scope: "row" }, item.caseId),
      el("td", { className: "text" }, given?.input ?? "—"),
      el("td", { className: "text" }, expectedText(given?.expected)),
      el(
        "td",
        {},
        item.status,
        item.error === undefined ? undefined : el("span", { className: "reason error" }, item.error),
      ),
      ...result.scorers.map((scorer) => scoreCell(item, scorer)),
      el(
        "td",
        {},
        item.status === "not-started"
          ? "—"
          : el("a", { href: `#task=${enc(item.taskId)}`, "aria-label": `Open task: case ${item.caseId}` }, "Open task"),
      ),
    );
  });
  parts.body.replaceChildren(
    el(
      "dl",
      { className: "facts" },
      el("dt", {}, "Dataset"),
      el("dd", {}, `${datasetText(result.dataset)} (${result.dataset.cases} cases)`),
      el("dt", {}, "Agent"),
      el("dd", {}, [result.agent, result.model].filter(Boolean).join(" · ")),
      el("dt", {}, "Status"),
      el("dd", {}, `${statusOf(result)} — ${result.totals.completed} of ${result.totals.cases} completed`),
      el("dt", {}, "Means"),
      el("dd", {}, meansText(result)),
    ),
    table("Cases and their scores", ["Case", "Input", "Expected", "Status", ...result.scorers, "Task"], rows, "cases"),
  );
  return result.running;
}

/** A change as a badge, in words (a colour alone would say nothing to some). @param {import("./experiments.js").Change | import("./experiments.js").CaseChange} change */
const changeBadge = (change) => el("span", { className: "change", dataset: { change } }, CHANGE_TEXT[change]);

/**
 * Two experiments compared: per scorer the two means and the change (the server's compare route),
 * how many cases improved or regressed, and every case's scores side by side. Whether either runs.
 * @param {{ title: HTMLElement, body: HTMLElement }} parts @param {Deps} deps
 * @param {string} baselineId @param {string} candidateId
 * @returns {Promise<boolean>}
 */
export async function renderCompare(parts, deps, baselineId, candidateId) {
  /** @type {[ExperimentResult, ExperimentResult, Comparison]} */
  const [a, b, comparison] = await Promise.all([
    deps.api("GET", experimentPath(baselineId)),
    deps.api("GET", experimentPath(candidateId)),
    deps.api("GET", `${experimentPath(baselineId)}/compare/${enc(candidateId)}`),
  ]);
  parts.title.textContent = `Compare ${title(a)} with ${title(b)}`;
  const sameDataset = a.dataset.digest === b.dataset.digest;
  const rows = compareCases(a, b);
  const counts = countChanges(rows);
  const scorers = rows[0]?.cells.map((cell) => cell.scorer) ?? [...new Set([...a.scorers, ...b.scorers])];
  const meanRows = comparison.scorers.map((mean) =>
    el(
      "tr",
      { dataset: { scorer: mean.scorer } },
      el("th", { scope: "row" }, mean.scorer),
      el("td", { className: "num" }, scoreText(mean.a)),
      el("td", { className: "num" }, scoreText(mean.b)),
      el("td", { className: "num" }, deltaText(mean.delta)),
    ),
  );
  const caseRows = rows.map((row) =>
    el(
      "tr",
      { dataset: { caseId: row.caseId, change: row.change } },
      el("th", { scope: "row" }, row.caseId),
      ...row.cells.map((cell) =>
        el(
          "td",
          { className: "score", dataset: { scorer: cell.scorer, change: cell.change } },
          el("span", { className: "num" }, `${scoreText(cell.a)} → ${scoreText(cell.b)}`),
          " ",
          changeBadge(cell.change),
          cell.delta === undefined || cell.delta === 0
            ? undefined
            : el("span", { className: "reason" }, deltaText(cell.delta)),
        ),
      ),
      el("td", {}, changeBadge(row.change)),
      el(
        "td",
        {},
        ...[row.a, row.b].flatMap((item, index) =>
          item === undefined || item.status === "not-started"
            ? []
            : [
                el(
                  "a",
                  {
                    href: `#task=${enc(item.taskId)}`,
                    "aria-label": `Task ${index === 0 ? "A" : "B"}: case ${row.caseId} in ${index === 0 ? title(a) : title(b)}`,
                  },
                  `Task ${index === 0 ? "A" : "B"}`,
                ),
                " ",
              ],
        ),
      ),
    ),
  );
  parts.body.replaceChildren(
    sameDataset
      ? el(
          "p",
          { className: "meta" },
          `Both ran ${datasetText(a.dataset)}. A is the baseline: a change is B against A.`,
        )
      : el(
          "p",
          { className: "mixed-datasets" },
          `These ran different datasets (${datasetText(a.dataset)} and ${datasetText(b.dataset)}): only cases with the same id are compared.`,
        ),
    el(
      "p",
      { id: "compare-counts", className: "counts" },
      `${counts.better} improved, ${counts.worse} regressed, ${counts.mixed} mixed, ${counts.same} unchanged` +
        (counts.missing === 0 ? "" : `, ${counts.missing} not in both`),
    ),
    table("Mean score per scorer", ["Scorer", `A: ${title(a)}`, `B: ${title(b)}`, "Change"], meanRows, "means"),
    table("Each case, A → B", ["Case", ...scorers, "Overall", "Tasks"], caseRows, "cases"),
  );
  return a.running || b.running;
}
