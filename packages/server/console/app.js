// The console's wiring: sign-in, the task list, one task watched live, and the actions on it.
// State that must survive a reload lives in sessionStorage (the token) and the URL (the task).
import { ApiError, apiClient, blobClient } from "./api.js";
import { followTask } from "./stream.js";
import { attachmentLabel, el, heldView, LiveView, logEntry, speaker, usageText } from "./task-log.js";
import { renderTimeline } from "./timeline.js";
import { parseTrace, renderSpanDetail, renderWaterfall, spanDuration } from "./trace.js";

const TOKEN_KEY = "sema.token";
const $ = (id) => document.getElementById(id);

let api;
let blobs;
let token;
/**
 * The task being watched: its id, stored events in order, how to stop following it, the view shown
 * (`activity` or `trace`) and, in the trace view, the last trace and the span chosen in it.
 */
let watched;
const live = new LiveView($("live"));

function notify(message) {
  $("notice").textContent = message;
}

function fail(error) {
  if (error instanceof ApiError && error.status === 401) return signOut("The token was refused: sign in again.");
  notify(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error));
}

function signIn(value) {
  token = value;
  api = apiClient(token);
  blobs = blobClient(token);
  sessionStorage.setItem(TOKEN_KEY, token);
  $("sign-in").hidden = true;
  $("workspace").hidden = false;
  $("sign-out").hidden = false;
}

function signOut(message = "") {
  sessionStorage.removeItem(TOKEN_KEY);
  token = api = blobs = undefined;
  stopWatching();
  $("sign-in").hidden = false;
  $("workspace").hidden = true;
  $("sign-out").hidden = true;
  $("task").hidden = true;
  $("task-list").replaceChildren();
  notify(message);
}

async function loadTasks() {
  const page = await api("GET", "/v1/tasks?limit=100");
  $("task-list").replaceChildren(
    ...page.tasks.map((task) => {
      const open = el(
        "button",
        { type: "button", dataset: { taskId: task.taskId } },
        task.objective || task.taskId,
        el("br"),
        el("span", { className: "meta" }, task.status + (task.parkedReason ? ` (${task.parkedReason})` : "")),
      );
      if (watched?.taskId === task.taskId) open.setAttribute("aria-current", "true");
      open.addEventListener("click", () => {
        location.hash = `task=${encodeURIComponent(task.taskId)}`;
      });
      return el("li", {}, open);
    }),
  );
}

function stopWatching() {
  watched?.stop.abort();
  clearTimeout(traceTimer);
  traceTimer = undefined;
  watched = undefined;
  live.clear();
}

async function refreshDetail() {
  if (watched === undefined) return;
  const { taskId } = watched;
  const detail = await api("GET", `/v1/tasks/${encodeURIComponent(taskId)}`);
  if (watched?.taskId !== taskId) return;
  $("task-objective").textContent = detail.objective;
  let status = detail.status;
  if (detail.parkedReason)
    status += ` (${detail.parkedReason}${detail.parkedDetail ? `: ${detail.parkedDetail}` : ""})`;
  if (detail.error) status += ` — ${detail.error.code}: ${detail.error.message}`;
  $("task-status").textContent = status;
  $("task-usage").textContent = usageText(detail.usage);
}

function renderApprovals() {
  const open = new Map();
  for (const event of watched.events) {
    if (event.type === "approval_requested") open.set(event.callId, event);
    else if (event.type === "approval_decided") open.delete(event.callId);
  }
  $("approvals").hidden = open.size === 0;
  $("approval-list").replaceChildren(
    ...[...open.values()].map((request) => {
      const decide = (decision) => async () => {
        try {
          await api(
            "POST",
            `/v1/tasks/${encodeURIComponent(watched.taskId)}/approvals/${encodeURIComponent(request.callId)}`,
            {
              decision,
              digest: request.digest,
            },
          );
        } catch (error) {
          fail(error);
        }
      };
      const input = (() => {
        try {
          return JSON.stringify(JSON.parse(request.inputJson), null, 2);
        } catch {
          return request.inputJson;
        }
      })();
      const approve = el("button", { type: "button" }, "Approve");
      const deny = el("button", { type: "button" }, "Deny");
      approve.addEventListener("click", decide("approve"));
      deny.addEventListener("click", decide("deny"));
      return el(
        "li",
        { dataset: { callId: request.callId } },
        el("p", {}, `${request.name} (${request.callId}) wants to run with:`),
        el("pre", {}, input),
        heldView(request.provenance),
        el("p", { className: "meta" }, `SHA-256 ${request.digest}`),
        approve,
        deny,
      );
    }),
  );
}

/**
 * A stored image shown as itself (fetched with the token, through an object URL: the page's policy
 * allows `blob:` images and nothing else from outside it); files and URLs stay labels.
 */
function attachmentView(taskId, attachment) {
  const label = attachmentLabel(attachment);
  if (attachment.type !== "image" || attachment.digest === undefined) return label;
  const image = el("img", { alt: label, title: label, className: "attachment" });
  blobs(taskId, attachment.digest)
    .then((blob) => {
      image.src = URL.createObjectURL(blob);
    })
    .catch(() => image.replaceWith(document.createTextNode(`${label}: not available`)));
  return image;
}

/** The trace of the watched task, fetched again (the server rebuilds it from the log) and drawn. */
async function refreshTrace() {
  const current = watched;
  if (current === undefined || current.view !== "trace") return;
  // Only the latest request draws: an earlier one answering late must not replace a newer trace.
  current.traceAsked = (current.traceAsked ?? 0) + 1;
  const asked = current.traceAsked;
  const request = await api("GET", `/v1/tasks/${encodeURIComponent(current.taskId)}/trace`);
  if (watched !== current || current.view !== "trace" || asked !== current.traceAsked) return;
  current.trace = parseTrace(request);
  drawTrace();
}

function drawTrace() {
  const current = watched;
  const trace = current.trace;
  if (trace === undefined) return;
  const select = (span) => {
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

function showView(view) {
  watched.view = view;
  for (const tab of document.querySelectorAll('[role="tab"]'))
    tab.setAttribute("aria-selected", String(tab.dataset.view === view));
  $("activity").hidden = view !== "activity";
  $("trace-view").hidden = view !== "trace";
  if (view === "trace") refreshTrace().catch(fail);
}

let traceTimer;
let detailTimer;
function onStored(event) {
  const current = watched;
  current.events.push(event);
  if (event.type === "model_turn") live.clear();
  $("log").append(logEntry(event, { attachment: (attachment) => attachmentView(current.taskId, attachment) }));
  if (event.type === "human_input" && event.actor) $("log").lastElementChild.title = `From ${speaker(event.actor)}`;
  renderTimeline($("timeline"), current.events, el);
  if (event.type.startsWith("approval_")) renderApprovals();
  // The server rebuilds the trace from the whole log: ask again at most once a second while
  // events arrive, so a busy task's view stays current without folding its log per event.
  if (current.view === "trace" && traceTimer === undefined)
    traceTimer = setTimeout(() => {
      traceTimer = undefined;
      refreshTrace().catch(fail);
    }, 1000);
  // Status and usage come from the API's own summary, at most a few times a second.
  clearTimeout(detailTimer);
  detailTimer = setTimeout(() => refreshDetail().catch(fail), 150);
}

function watch(taskId) {
  stopWatching();
  watched = { taskId, events: [], stop: new AbortController(), view: "activity" };
  $("task").hidden = false;
  $("task-title").textContent = `Task ${taskId}`;
  $("log").replaceChildren();
  $("timeline").replaceChildren();
  $("waterfall").replaceChildren();
  $("trace-summary").textContent = "";
  renderSpanDetail($("span-detail"), undefined);
  $("approvals").hidden = true;
  for (const button of $("task-list").querySelectorAll("button"))
    button.setAttribute("aria-current", String(button.dataset.taskId === taskId));
  refreshDetail().catch(fail);
  // A reload starts from the beginning of the log, so the view holds every event exactly once.
  followTask({
    taskId,
    token,
    afterSeq: 0,
    signal: watched.stop.signal,
    onStored,
    onLive: (event) => live.add(event),
    onState: (state, detail) => {
      $("stream-state").textContent = state + (detail ? ` (${detail})` : "");
      // Deltas missed while disconnected would garble the partial text: the stored turn follows.
      if (state === "reconnecting") live.clear();
      if (state === "unauthorized") signOut("The token was refused: sign in again.");
      if (state === "ended") loadTasks().catch(fail);
    },
  }).catch(fail);
}

/** `#task=<id>` or `#task=<id>&view=trace`: the task and the view, so either can be linked to. */
function fromHash() {
  const match = /^#task=([^&]+)(?:&view=(activity|trace))?$/.exec(location.hash);
  return match === null ? {} : { taskId: decodeURIComponent(match[1]), view: match[2] ?? "activity" };
}

function route() {
  if (api === undefined) return;
  const { taskId, view } = fromHash();
  if (taskId === undefined) {
    stopWatching();
    $("task").hidden = true;
    return;
  }
  if (watched?.taskId !== taskId) watch(taskId);
  showView(view);
}

$("sign-in-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const value = $("token").value.trim();
  try {
    await apiClient(value)("GET", "/v1/tasks?limit=1");
  } catch (error) {
    notify(error instanceof ApiError && error.status === 401 ? "That token was not accepted." : String(error));
    return;
  }
  $("token").value = "";
  notify("");
  signIn(value);
  await loadTasks().catch(fail);
  route();
});

$("sign-out").addEventListener("click", () => signOut());
$("refresh").addEventListener("click", () => loadTasks().catch(fail));

$("create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const created = await api("POST", "/v1/tasks", { objective: $("objective").value });
    $("objective").value = "";
    await loadTasks();
    location.hash = `task=${encodeURIComponent(created.taskId)}`;
  } catch (error) {
    fail(error);
  }
});

$("input-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const action = event.submitter?.dataset.action ?? "steer";
  const text = $("input-text").value;
  const path = `/v1/tasks/${encodeURIComponent(watched.taskId)}`;
  try {
    if (action === "interrupt" && text.trim() === "") await api("POST", `${path}/interrupt`);
    else if (text.trim() === "") return notify("Write something to send first.");
    else if (action === "queue") await api("POST", `${path}/inputs`, { text, carrier: "nextTurn" });
    else if (action === "interrupt") await api("POST", `${path}/inputs`, { text, policy: "interrupt" });
    else await api("POST", `${path}/inputs`, { text, carrier: "steer" });
    $("input-text").value = "";
    notify("");
  } catch (error) {
    fail(error);
  }
});

for (const [id, action] of [
  ["resume", "/resume"],
  ["cancel", "/cancel"],
]) {
  $(id).addEventListener("click", async () => {
    try {
      await api("POST", `/v1/tasks/${encodeURIComponent(watched.taskId)}${action}`);
      notify("");
    } catch (error) {
      fail(error);
    }
  });
}

for (const tab of document.querySelectorAll('[role="tab"]'))
  tab.addEventListener("click", () => {
    const view = tab.dataset.view === "trace" ? "&view=trace" : "";
    location.hash = `task=${encodeURIComponent(watched.taskId)}${view}`;
  });

window.addEventListener("hashchange", route);

const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved !== null) {
  signIn(saved);
  loadTasks().catch(fail);
  route();
}
