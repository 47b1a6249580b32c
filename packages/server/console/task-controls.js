// @ts-check
// The controls of the task shown: one box that steers a running task, queues for its next turn or
// continues a finished one; Interrupt, Resume and Cancel (with a confirmation) only where they
// apply; and Replay, whose report opens below. The task view (task-view.js) says which task is
// shown and what its status is; the controls ask it to read the task again after each action.

import { ApiError } from "./api.js";
import { el, present } from "./dom.js";

/** An element the page always has. */
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * What the controls need of the page.
 * @typedef {object} TaskControlsDeps
 * @property {() => { taskId: string, status?: string } | undefined} watched the task shown, if any
 * @property {() => import("./api.js").Api} client
 * @property {(message: string) => void} notify
 * @property {(error: unknown) => void} fail
 * @property {() => void} changed the task changed: read its status again
 */

/** Only the controls that apply: Interrupt while running, Resume while parked, Cancel until it ends. */
export function showControls(/** @type {string} */ status, /** @type {string | undefined} */ parkedReason) {
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

/** Wire the page's task controls, once. @param {TaskControlsDeps} deps */
export function wireTaskControls({ watched, client, notify, fail, changed }) {
  $("input-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const current = watched();
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
      changed();
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
    const current = watched();
    if (current === undefined) return;
    try {
      await client()("POST", `/v1/tasks/${encodeURIComponent(current.taskId)}${path}`);
      notify("");
      changed();
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
    const current = watched();
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
}
