// @ts-check
// The studio's wiring: sign-in, the task list, one task watched live (its conversation, timeline,
// log and trace from one fold), the approvals inbox, the agents and the experiments. State that must survive a
// reload lives in sessionStorage (the token) and the URL (what is shown).

import { renderAgents } from "./agents.js";
import { ApiError, apiClient, blobClient, textClient } from "./api.js";
import { approvalCard } from "./approvals.js";
import { ConversationView } from "./conversation.js";
import { el, present, statusText, usageText } from "./dom.js";
import { EventLogView } from "./event-log.js";
import { renderCompare, renderExperiment, renderExperimentList } from "./experiments-view.js";
import { TaskFold } from "./fold.js";
import { Inbox } from "./inbox.js";
import { followTask } from "./stream.js";
import { TaskList } from "./task-list.js";
import { attachmentLabel } from "./task-log.js";
import { TimelineView } from "./timeline.js";
import { parseTrace, renderSpanDetail, renderWaterfall, spanDuration } from "./trace.js";

/** @typedef {import("./api.js").Api} Api */
/** @typedef {import("@sema-agent/core/protocol").StoredEvent} StoredEvent */
/** @typedef {{ taskId: string, fold: TaskFold, stop: AbortController, view: string, status?: string, parkedReason?: string, queue: StoredEvent[], caughtUp?: number, trace?: ReturnType<typeof parseTrace>, traceAsked?: number, selectedSpan?: string, ended?: boolean }} Watched */

const TOKEN_KEY = "sema.token";
/** An element the page always has. */
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const input = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/** @type {Api | undefined} */
let api;
/** @type {((taskId: string, digest: string) => Promise<Blob>) | undefined} */
let blobs;
let token = "";
/** @type {Watched | undefined} */
let watched;

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
    if (watched?.taskId === item.taskId) scheduleDetail();
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

const conversation = new ConversationView(
  { list: $("conversation-list"), result: $("result"), usage: $("conversation-usage"), announce: $("announce") },
  {
    onFork: (seq) => fork(seq).catch(fail),
    attachment: (attachment) => attachmentView(attachment),
    approvalCard: (request) => approvalCard({ ...request, taskId: request.taskId }, decide),
  },
);
const timeline = new TimelineView($("timeline"));
const eventLog = new EventLogView($("log"), { attachment: (attachment) => attachmentView(attachment) });

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
  stopWatching();
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

function stopWatching() {
  watched?.stop.abort();
  clearTimeout(traceTimer);
  traceTimer = undefined;
  watched = undefined;
  conversation.clear();
  timeline.clear();
  eventLog.clear();
}

/** Only the controls that apply: Interrupt while running, Resume while parked, Cancel until it ends. */
function showControls(/** @type {string} */ status, /** @type {string | undefined} */ parkedReason) {
  const finished = status === "completed" || status === "failed" || status === "cancelled";
  $("interrupt").hidden = status !== "running";
  $("resume").hidden = status !== "parked" || parkedReason === "approval";
  $("cancel").hidden = finished;
  if (finished) $("cancel-confirm").hidden = true;
  $("queue").hidden = status !== "running";
  const form = $("input-form");
  form.hidden = status === "cancelled";
  $("send-hint").textContent =
    status === "running"
      ? "Send steers the running turn; Queue waits for the next."
      : finished
        ? "Send continues the conversation."
        : "Send wakes the task with your message.";
}

async function refreshDetail() {
  const current = watched;
  if (current === undefined) return;
  const detail = await client()("GET", `/v1/tasks/${encodeURIComponent(current.taskId)}`);
  if (watched !== current) return;
  current.status = detail.status;
  current.parkedReason = detail.parkedReason;
  // Each turn's cost, at the server's price of the model that ran it (when it has one).
  const priced = current.fold.setPrices(detail.prices);
  if (priced.usage) conversation.update(current.fold, priced, false);
  // What the log held when the page opened it: catching up to there is not news to announce.
  current.caughtUp ??= detail.lastSeq;
  // The stream ended with the task, and the task went on (a message continued it): follow again.
  if (current.ended === true && detail.lastSeq > current.fold.lastSeq + current.queue.length) follow(current);
  $("task-title").textContent = detail.objective.split("\n")[0]?.slice(0, 120) || `Task ${current.taskId}`;
  $("task-objective").textContent = `Task ${current.taskId}`;
  const status = $("task-status");
  status.textContent =
    statusText(detail.status, detail.parkedReason) +
    (detail.error ? ` — ${detail.error.code}: ${detail.error.message}` : "");
  status.dataset.status = detail.parkedReason === "approval" ? "approval" : detail.status;
  $("task-agent").textContent = [detail.agent ?? "default", detail.model].filter(Boolean).join(" · ");
  $("task-usage").textContent = usageText(detail.usage);
  const lineage = [];
  if (detail.forkedFrom !== undefined)
    lineage.push(
      taskLink(detail.forkedFrom.taskId, `Forked from ${detail.forkedFrom.taskId} at event ${detail.forkedFrom.seq}`),
    );
  if (detail.parentTaskId !== undefined) lineage.push(taskLink(detail.parentTaskId, `Child of ${detail.parentTaskId}`));
  for (const child of detail.children) lineage.push(taskLink(child.taskId, `Child ${child.taskId} (${child.status})`));
  const forks = await client()("GET", `/v1/tasks/${encodeURIComponent(current.taskId)}/forks?limit=20`).catch(() => ({
    tasks: [],
  }));
  for (const forked of forks.tasks) lineage.push(taskLink(forked.taskId, `Fork ${forked.taskId} (${forked.status})`));
  if (watched !== current) return;
  $("lineage").replaceChildren(...lineage.flatMap((link, index) => (index === 0 ? [link] : [" · ", link])));
  showControls(detail.status, detail.parkedReason);
}

function taskLink(/** @type {string} */ taskId, /** @type {string} */ text) {
  return el("a", { href: `#task=${encodeURIComponent(taskId)}` }, text);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let detailTimer;
function scheduleDetail() {
  clearTimeout(detailTimer);
  detailTimer = setTimeout(() => refreshDetail().catch(fail), 150);
}

/**
 * A stored image shown as itself (fetched with the token, through an object URL: the page's policy
 * allows `blob:` images and nothing else from outside it); files and URLs stay labels.
 */
function attachmentView(/** @type {Record<string, unknown>} */ attachment) {
  const label = attachmentLabel(attachment);
  const taskId = watched?.taskId;
  if (
    attachment.type !== "image" ||
    typeof attachment.digest !== "string" ||
    taskId === undefined ||
    blobs === undefined
  )
    return document.createTextNode(label);
  const image = el("img", { alt: label, title: label, className: "attachment" });
  blobs(taskId, attachment.digest)
    .then((blob) => {
      image.src = URL.createObjectURL(blob);
    })
    .catch(() => image.replaceWith(document.createTextNode(`${label}: not available`)));
  return image;
}

async function fork(/** @type {number} */ seq) {
  const current = watched;
  if (current === undefined) return;
  const forked = await client()("POST", `/v1/tasks/${encodeURIComponent(current.taskId)}/fork`, { atSeq: seq });
  notify(`Forked at event ${seq}: the fork waits for a message or a resume.`);
  tasks.refresh().catch(fail);
  location.hash = `task=${encodeURIComponent(forked.taskId)}`;
}

/** The trace of the watched task, fetched again (the server rebuilds it from the log) and drawn. */
async function refreshTrace() {
  const current = watched;
  if (current === undefined || current.view !== "trace") return;
  // Only the latest request draws: an earlier one answering late must not replace a newer trace.
  current.traceAsked = (current.traceAsked ?? 0) + 1;
  const asked = current.traceAsked;
  const request = await client()("GET", `/v1/tasks/${encodeURIComponent(current.taskId)}/trace`);
  if (watched !== current || current.view !== "trace" || asked !== current.traceAsked) return;
  current.trace = parseTrace(request);
  drawTrace();
}

function drawTrace() {
  const current = watched;
  const trace = current?.trace;
  if (current === undefined || trace === undefined) return;
  const select = (/** @type {{ id: string }} */ span) => {
    current.selectedSpan = span.id;
    drawTrace();
  };
  renderWaterfall($("waterfall"), trace, { el, selectedId: current.selectedSpan, onSelect: select });
  $("trace-summary").textContent =
    `Trace ${trace.traceId ?? "(empty)"}: ${trace.spans.length} spans over ${spanDuration(trace)}, ` +
    "rebuilt from the task's log (GET /v1/tasks/{id}/trace gives it as OTLP/JSON). Click a span for its attributes.";
  renderSpanDetail(
    $("span-detail"),
    trace.spans.find((span) => span.id === current.selectedSpan),
    trace,
    el,
  );
}

function showView(/** @type {string} */ view) {
  if (watched === undefined) return;
  watched.view = view;
  for (const tab of document.querySelectorAll('[role="tab"]'))
    tab.setAttribute("aria-selected", String(/** @type {HTMLElement} */ (tab).dataset.view === view));
  $("conversation").hidden = view !== "conversation";
  $("activity").hidden = view !== "activity";
  $("trace-view").hidden = view !== "trace";
  if (view === "trace") refreshTrace().catch(fail);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let traceTimer;

/**
 * Stored events are folded in batches: those that arrived together (a catch-up sends hundreds in
 * one read) are drawn once, each part once, however many events touched it.
 */
function onStored(/** @type {StoredEvent} */ event) {
  const current = watched;
  if (current === undefined) return;
  current.queue.push(event);
  if (current.queue.length === 1) setTimeout(() => drain(current), 0);
}

function drain(/** @type {Watched} */ current) {
  if (watched !== current) return;
  const events = current.queue;
  current.queue = [];
  const change = current.fold.addAll(events);
  const last = events.at(-1)?.seq ?? 0;
  conversation.update(current.fold, change, current.caughtUp !== undefined && last > current.caughtUp);
  timeline.update(current.fold.legs, change.legs);
  eventLog.add(events);
  // How far the page has folded the log (a test or a benchmark waits for it).
  $("task").dataset.seq = String(current.fold.lastSeq);
  // The server rebuilds the trace from the whole log: ask again at most once a second while
  // events arrive, so a busy task's view stays current without folding its log per event.
  if (current.view === "trace" && traceTimer === undefined)
    traceTimer = setTimeout(() => {
      traceTimer = undefined;
      refreshTrace().catch(fail);
    }, 1000);
  // Status and usage come from the API's own summary, at most a few times a second.
  scheduleDetail();
}

function watch(/** @type {string} */ taskId) {
  stopWatching();
  const current = { taskId, fold: new TaskFold(), stop: new AbortController(), view: "conversation", queue: [] };
  watched = current;
  $("task").hidden = false;
  $("task-title").textContent = "Task";
  $("task-objective").textContent = `Task ${taskId}`;
  eventLog.clear();
  delete $("task").dataset.seq;
  $("waterfall").replaceChildren();
  $("lineage").replaceChildren();
  $("replay-report").hidden = true;
  $("cancel-confirm").hidden = true;
  $("trace-summary").textContent = "";
  renderSpanDetail($("span-detail"), undefined);
  tasks.select(taskId);
  refreshDetail().catch(fail);
  // A reload starts from the beginning of the log, so the view holds every event exactly once.
  follow(current);
}

/** Follow the watched task's log from the last event folded (or queued) on. @param {Watched} current */
function follow(current) {
  current.ended = false;
  followTask({
    taskId: current.taskId,
    token,
    afterSeq: current.queue.at(-1)?.seq ?? current.fold.lastSeq,
    signal: current.stop.signal,
    onStored,
    onLive: (/** @type {{ type: string }} */ event) => conversation.live(event),
    onState: (/** @type {string} */ state, /** @type {string | undefined} */ detail) => {
      $("stream-state").textContent = state + (detail ? ` (${detail})` : "");
      // Deltas missed while disconnected would garble the partial text: the stored turn follows.
      if (state === "reconnecting") conversation.dropLive();
      if (state === "unauthorized") signOut(REVOKED);
      if (state === "ended") {
        current.ended = true;
        scheduleDetail();
      }
    },
  }).catch(fail);
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
    stopWatching();
    $("task").hidden = true;
    tasks.select(undefined);
    return;
  }
  if (watched?.taskId !== taskId) watch(taskId);
  showView(view ?? "conversation");
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

$("input-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const current = watched;
  if (current === undefined) return;
  const submitter = /** @type {SubmitEvent} */ (event).submitter;
  const action = submitter instanceof HTMLElement ? submitter.dataset.action : "send";
  const field = /** @type {HTMLTextAreaElement} */ ($("input-text"));
  const text = field.value;
  if (text.trim() === "") return notify("Write something to send first.");
  const path = `/v1/tasks/${encodeURIComponent(current.taskId)}/inputs`;
  try {
    // Running: a steer lands in the current turn, a queued one in the next. Otherwise the API's
    // default: a parked task wakes with it, a finished one continues (as `agent.send` does).
    if (action === "queue") await client()("POST", path, { text, carrier: "nextTurn" });
    else if (current.status === "running")
      // It may have finished since its status was read: then the message continues it.
      await client()("POST", path, { text, carrier: "steer" }).catch((error) => {
        if (!(error instanceof ApiError) || error.code !== "TaskFinished") throw error;
        return client()("POST", path, { text });
      });
    else await client()("POST", path, { text });
    field.value = "";
    notify("");
    scheduleDetail();
  } catch (error) {
    fail(error);
  }
});

// Enter sends, Shift+Enter is a new line: what every chat does.
$("input-text").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    /** @type {HTMLFormElement} */ ($("input-form")).requestSubmit($("send"));
  }
});

/** @param {string} path */
const action = (path) => async () => {
  const current = watched;
  if (current === undefined) return;
  try {
    await client()("POST", `/v1/tasks/${encodeURIComponent(current.taskId)}${path}`);
    notify("");
    scheduleDetail();
  } catch (error) {
    fail(error);
  }
};
$("interrupt").addEventListener("click", action("/interrupt"));
$("resume").addEventListener("click", action("/resume"));
$("cancel").addEventListener("click", () => {
  $("cancel-confirm").hidden = false;
  $("cancel-no").focus();
});
$("cancel-no").addEventListener("click", () => {
  $("cancel-confirm").hidden = true;
  $("cancel").focus();
});
$("cancel-yes").addEventListener("click", async () => {
  $("cancel-confirm").hidden = true;
  await action("/cancel")();
});
$("replay").addEventListener("click", async () => {
  const current = watched;
  if (current === undefined) return;
  try {
    const report = await client()("POST", `/v1/tasks/${encodeURIComponent(current.taskId)}/replay`, {});
    const box = /** @type {HTMLDetailsElement} */ ($("replay-report"));
    box.hidden = false;
    box.open = true;
    $("replay-body").replaceChildren(
      ...present(
        el("p", {}, `Replay: ${report.outcome} over ${report.recordedTurns} recorded turns.`),
        report.divergence === undefined
          ? undefined
          : el(
              "pre",
              {},
              `Turn ${report.divergence.turn} differs in ${report.divergence.parts.join(", ")}:\n${report.divergence.diff}`,
            ),
      ),
    );
  } catch (error) {
    fail(error);
  }
});

for (const tab of document.querySelectorAll('[role="tab"]'))
  tab.addEventListener("click", () => {
    if (watched === undefined) return;
    const view = /** @type {HTMLElement} */ (tab).dataset.view;
    location.hash = `task=${encodeURIComponent(watched.taskId)}${view === "conversation" ? "" : `&view=${view}`}`;
  });

window.addEventListener("hashchange", route);

const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved !== null) {
  signIn(saved);
  start();
}
