// @ts-check
// The studio's wiring: sign-in and sign-out, the sections and what the URL says to show, the task
// list, the approvals inbox, the agents and the experiments; the task shown is task-view.js. State
// that must survive a reload lives in sessionStorage (the token) and the URL (what is shown).

import { renderAgents } from "./agents.js";
import { ApiError, apiClient, blobClient, textClient } from "./api.js";
import { approvalCard } from "./approvals.js";
import { renderCompare, renderExperiment, renderExperimentList } from "./experiments-view.js";
import { Inbox } from "./inbox.js";
import { TaskList } from "./task-list.js";
import { taskView } from "./task-view.js";

/** @typedef {import("./api.js").Api} Api */

const TOKEN_KEY = "sema.token";
/** An element the page always has. */
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const input = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/** @type {Api | undefined} */
let api;
/** @type {((taskId: string, digest: string) => Promise<Blob>) | undefined} */
let blobs;
let token = "";

const REVOKED =
  "This token was refused: it expired or was revoked. Get a new one with `sema token create` and sign in again.";

function notify(/** @type {string} */ message) {
  $("notice").textContent = message;
}

/** An API error as a person reads it; a refused token signs out and says how to get another. */
function fail(/** @type {unknown} */ error) {
  if (error instanceof ApiError && error.status === 401) return signOut(REVOKED);
  notify(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error));
}

/** The experiments views' calls: JSON, and the dataset's JSON Lines. */
function evalsDeps() {
  return { api: client(), text: textClient(token) };
}

/** The signed-in client; every caller runs after sign-in. */
function client() {
  if (api === undefined) throw new Error("not signed in");
  return api;
}

const decide = /** @type {import("./approvals.js").Decide} */ (
  async ({ taskId, callId, ...body }) => {
    await client()("POST", `/v1/tasks/${encodeURIComponent(taskId)}/approvals/${encodeURIComponent(callId)}`, body);
    inbox.refresh().catch(fail);
  }
);

const tasks = new TaskList({
  list: $("task-list"),
  more: /** @type {HTMLButtonElement} */ ($("more-tasks")),
  state: $("list-state"),
  q: input("filter-q"),
  status: /** @type {HTMLSelectElement} */ ($("filter-status")),
  agent: /** @type {HTMLSelectElement} */ ($("filter-agent")),
  api: () => client(),
  token: () => token,
  open: (taskId) => {
    location.hash = `task=${encodeURIComponent(taskId)}`;
  },
  onChange: (item) => {
    task.changed(item.taskId);
    inbox.taskChanged(item);
  },
  fail,
});

const inbox = new Inbox({
  container: $("inbox"),
  empty: $("inbox-empty"),
  count: $("approval-count"),
  api: () => client(),
  card: (call) => approvalCard(call, decide),
  open: (taskId) => {
    location.hash = `task=${encodeURIComponent(taskId)}`;
  },
});

const task = taskView({
  client,
  token: () => token,
  blobs: () => blobs,
  notify,
  fail,
  unauthorized: () => signOut(REVOKED),
  decide,
  tasks,
});

function signIn(/** @type {string} */ value) {
  token = value;
  api = apiClient(token);
  blobs = blobClient(token);
  sessionStorage.setItem(TOKEN_KEY, token);
  $("sign-in").hidden = true;
  $("workspace").hidden = false;
  $("sign-out").hidden = false;
  $("sections").hidden = false;
}

function signOut(message = "") {
  sessionStorage.removeItem(TOKEN_KEY);
  token = "";
  api = blobs = undefined;
  task.stop();
  tasks.stop();
  inbox.stop();
  clearTimeout(experimentsTimer);
  experimentsTimer = undefined;
  $("sign-in").hidden = false;
  $("workspace").hidden = true;
  $("sign-out").hidden = true;
  $("sections").hidden = true;
  $("task").hidden = true;
  notify(message);
}

/**
 * `#task=<id>[&view=activity|trace]`, `#approvals`, `#agents`, `#experiments`,
 * `#experiment=<id>`, `#compare=<a>&with=<b>`, `#tasks`: what is shown, so a reload or a shared
 * link opens it again.
 */
function fromHash() {
  const task = /^#task=([^&]+)(?:&view=(conversation|activity|trace))?$/.exec(location.hash);
  if (task !== null)
    return { section: "tasks", taskId: decodeURIComponent(task[1] ?? ""), view: task[2] ?? "conversation" };
  const experiment = /^#experiment=([^&]+)$/.exec(location.hash);
  if (experiment !== null) return { section: "experiments", experimentId: decodeURIComponent(experiment[1] ?? "") };
  const compare = /^#compare=([^&]+)&with=([^&]+)$/.exec(location.hash);
  if (compare !== null)
    return {
      section: "experiments",
      compare: /** @type {[string, string]} */ ([
        decodeURIComponent(compare[1] ?? ""),
        decodeURIComponent(compare[2] ?? ""),
      ]),
    };
  const section = /^#(approvals|agents|experiments)$/.exec(location.hash)?.[1];
  return { section: section ?? "tasks" };
}

/** While an experiment shown runs, its view is drawn again every few seconds. */
const EXPERIMENT_REFRESH_MS = 2000;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let experimentsTimer;

/** The experiments section: the list, one experiment, or two compared. @param {ReturnType<typeof fromHash>} shown */
function showExperiments(shown) {
  clearTimeout(experimentsTimer);
  experimentsTimer = undefined;
  const inSection = shown.section === "experiments";
  const one = inSection && shown.experimentId !== undefined;
  const two = inSection && shown.compare !== undefined;
  $("experiments-view").hidden = !inSection || one || two;
  $("experiment-view").hidden = !one;
  $("compare-view").hidden = !two;
  if (!inSection) return;
  const hash = location.hash;
  const drawn =
    shown.experimentId !== undefined
      ? renderExperiment({ title: $("experiment-title"), body: $("experiment-body") }, evalsDeps(), shown.experimentId)
      : shown.compare !== undefined
        ? renderCompare({ title: $("compare-title"), body: $("compare-body") }, evalsDeps(), ...shown.compare)
        : renderExperimentList(
            {
              list: $("experiment-list"),
              baseline: /** @type {HTMLSelectElement} */ ($("compare-a")),
              candidate: /** @type {HTMLSelectElement} */ ($("compare-b")),
            },
            evalsDeps(),
          );
  drawn
    .then((running) => {
      // Still on this view and signed in: follow the run until it ends.
      if (running && location.hash === hash && api !== undefined && experimentsTimer === undefined)
        experimentsTimer = setTimeout(() => {
          experimentsTimer = undefined;
          if (location.hash === hash && api !== undefined) showExperiments(fromHash());
        }, EXPERIMENT_REFRESH_MS);
    })
    .catch(fail);
}

function route() {
  if (api === undefined) return;
  const shown = fromHash();
  const { section, taskId, view } = shown;
  for (const link of document.querySelectorAll("#sections a")) {
    const mine = /** @type {HTMLElement} */ (link).dataset.section === section;
    if (mine) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  $("approvals-view").hidden = section !== "approvals";
  $("agents-view").hidden = section !== "agents";
  $("tasks-pane").hidden = section !== "tasks";
  if (section === "approvals") inbox.refresh().catch(fail);
  if (section === "agents") renderAgents($("agent-list"), client()).catch(fail);
  showExperiments(shown);
  if (section !== "tasks" || taskId === undefined) {
    task.stop();
    $("task").hidden = true;
    tasks.select(undefined);
    return;
  }
  if (task.taskId !== taskId) task.watch(taskId);
  task.showView(view ?? "conversation");
}

function start() {
  tasks.start().catch(fail);
  inbox.start();
  route();
}

$("sign-in-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const value = input("token").value.trim();
  try {
    await apiClient(value)("GET", "/v1/tasks?limit=1");
  } catch (error) {
    notify(
      error instanceof ApiError && error.status === 401
        ? "That token was not accepted: it may be mistyped, expired or revoked. `sema token create` makes a new one."
        : String(error),
    );
    return;
  }
  input("token").value = "";
  notify("");
  signIn(value);
  start();
});

$("sign-out").addEventListener("click", () => signOut());

$("compare-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const a = /** @type {HTMLSelectElement} */ ($("compare-a"));
  const b = /** @type {HTMLSelectElement} */ ($("compare-b"));
  if (a.value === b.value) return notify("Pick two different experiments to compare.");
  const digest = (/** @type {HTMLSelectElement} */ select) => select.selectedOptions[0]?.dataset.digest;
  if (digest(a) !== digest(b)) return notify("Pick two experiments of the same dataset (and version) to compare.");
  notify("");
  location.hash = `compare=${encodeURIComponent(a.value)}&with=${encodeURIComponent(b.value)}`;
});

$("create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const field = /** @type {HTMLTextAreaElement} */ ($("objective"));
    const created = await client()("POST", "/v1/tasks", { objective: field.value });
    field.value = "";
    tasks.refresh().catch(fail);
    location.hash = `task=${encodeURIComponent(created.taskId)}`;
  } catch (error) {
    fail(error);
  }
});
window.addEventListener("hashchange", route);

const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved !== null) {
  signIn(saved);
  start();
}
