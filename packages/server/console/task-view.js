// @ts-check
// One task watched live: its conversation, timeline, event log and trace, drawn from one fold of
// its log (fold.js) as the stream brings events, in batches; its header (status, usage, lineage)
// from the API's summary, read again at most a few times a second; its tabs. The page's routing
// (app.js) says which task and which view; the controls are task-controls.js.

import { approvalCard } from "./approvals.js";
import { ConversationView } from "./conversation.js";
import { el, statusText, usageText } from "./dom.js";
import { EventLogView } from "./event-log.js";
import { TaskFold } from "./fold.js";
import { followTask } from "./stream.js";
import { showControls, wireTaskControls } from "./task-controls.js";
import { attachmentLabel } from "./task-log.js";
import { TimelineView } from "./timeline.js";
import { parseTrace, renderSpanDetail, renderWaterfall, spanDuration } from "./trace.js";

/** @typedef {import("@sema-agent/core/protocol").StoredEvent} StoredEvent */
/** @typedef {{ taskId: string, fold: TaskFold, stop: AbortController, view: string, status?: string, parkedReason?: string, queue: StoredEvent[], caughtUp?: number, trace?: ReturnType<typeof parseTrace>, traceAsked?: number, selectedSpan?: string, ended?: boolean }} Watched */

/** An element the page always has. */
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * What the task view needs of the page.
 * @typedef {object} TaskViewDeps
 * @property {() => import("./api.js").Api} client
 * @property {() => string} token
 * @property {() => ((taskId: string, digest: string) => Promise<Blob>) | undefined} blobs
 * @property {(message: string) => void} notify
 * @property {(error: unknown) => void} fail
 * @property {() => void} unauthorized the token was refused
 * @property {import("./approvals.js").Decide} decide
 * @property {{ refresh(): Promise<void>, select(taskId: string | undefined): void }} tasks the task list
 */

/** The task view, wired to the page once. @param {TaskViewDeps} deps */
export function taskView(deps) {
  const { client, notify, fail, unauthorized, decide, tasks } = deps;
  /** @type {Watched | undefined} */
  let watched;

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

  function stopWatching() {
    watched?.stop.abort();
    clearTimeout(traceTimer);
    traceTimer = undefined;
    watched = undefined;
    conversation.clear();
    timeline.clear();
    eventLog.clear();
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
    if (detail.parentTaskId !== undefined)
      lineage.push(taskLink(detail.parentTaskId, `Child of ${detail.parentTaskId}`));
    for (const child of detail.children)
      lineage.push(taskLink(child.taskId, `Child ${child.taskId} (${child.status})`));
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
    const blobs = deps.blobs();
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
      token: deps.token(),
      afterSeq: current.queue.at(-1)?.seq ?? current.fold.lastSeq,
      signal: current.stop.signal,
      onStored,
      onLive: (/** @type {{ type: string }} */ event) => conversation.live(event),
      onState: (/** @type {string} */ state, /** @type {string | undefined} */ detail) => {
        $("stream-state").textContent = state + (detail ? ` (${detail})` : "");
        // Deltas missed while disconnected would garble the partial text: the stored turn follows.
        if (state === "reconnecting") conversation.dropLive();
        if (state === "unauthorized") unauthorized();
        if (state === "ended") {
          current.ended = true;
          scheduleDetail();
        }
      },
    }).catch(fail);
  }

  for (const tab of document.querySelectorAll('[role="tab"]'))
    tab.addEventListener("click", () => {
      if (watched === undefined) return;
      const view = /** @type {HTMLElement} */ (tab).dataset.view;
      location.hash = `task=${encodeURIComponent(watched.taskId)}${view === "conversation" ? "" : `&view=${view}`}`;
    });

  wireTaskControls({ watched: () => watched, client, notify, fail, changed: () => scheduleDetail() });

  return {
    watch,
    showView,
    stop: stopWatching,
    /** The task shown, if any. */
    get taskId() {
      return watched?.taskId;
    },
    /** A task changed (the list heard): read it again if it is the one shown. @param {string} taskId */
    changed(taskId) {
      if (watched?.taskId === taskId) scheduleDetail();
    },
  };
}
