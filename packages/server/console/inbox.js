// @ts-check
// The approvals inbox: every call waiting for the signed-in person's decision, across tasks, each
// a card to decide from without opening its task. From GET /v1/approvals; on a server without
// that route, from the tasks that list open approvals and their details.
import { ApiError } from "./api.js";
import { el } from "./dom.js";

/** @typedef {import("./approvals.js").ApprovalCall} ApprovalCall */

/**
 * @typedef {object} InboxOptions
 * @property {HTMLElement} container
 * @property {HTMLElement} empty
 * @property {HTMLElement} count the badge beside "Approvals"
 * @property {() => import("./api.js").Api} api
 * @property {(call: ApprovalCall) => HTMLElement} card
 * @property {(taskId: string) => void} open
 */

export class Inbox {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  #asked = 0;

  constructor(/** @type {InboxOptions} */ options) {
    this.options = options;
  }

  start() {
    this.refresh().catch(() => undefined);
  }

  stop() {
    clearTimeout(this.#timer);
    this.#asked += 1;
    this.options.container.replaceChildren();
    this.options.count.hidden = true;
  }

  /** A task's open approvals changed (the task list's stream says so): look again, soon. */
  taskChanged(/** @type {{ openApprovals: string[] }} */ _task) {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.refresh().catch(() => undefined), 200);
  }

  /** @returns {Promise<ApprovalCall[]>} */
  async #load() {
    const api = this.options.api();
    try {
      // A page may be short, even empty, and still go on: follow nextCursor (a few pages at most).
      /** @type {ApprovalCall[]} */
      const calls = [];
      let cursor;
      for (let pages = 0; pages < 10; pages += 1) {
        const query = new URLSearchParams({ limit: "100" });
        if (cursor !== undefined) query.set("cursor", cursor);
        const page = await api("GET", `/v1/approvals?${query}`);
        calls.push(...page.approvals);
        cursor = page.nextCursor;
        if (cursor === undefined) break;
      }
      return calls;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
    }
    const page = await api("GET", "/v1/tasks?status=parked&limit=100");
    /** @type {ApprovalCall[]} */
    const calls = [];
    for (const task of page.tasks) {
      if (task.openApprovals.length === 0) continue;
      const detail = await api("GET", `/v1/tasks/${encodeURIComponent(task.taskId)}`);
      for (const pending of detail.pendingApprovals)
        calls.push({ ...pending, taskId: task.taskId, objective: detail.objective, agent: detail.agent });
    }
    return calls;
  }

  async refresh() {
    this.#asked += 1;
    const asked = this.#asked;
    const calls = await this.#load();
    if (asked !== this.#asked) return;
    const { container, empty, count } = this.options;
    count.hidden = calls.length === 0;
    count.textContent = String(calls.length);
    count.setAttribute("aria-label", `${calls.length} waiting`);
    empty.hidden = calls.length > 0;
    // Keep a card that is still waiting as it is: a refresh (another task changed) must not wipe
    // the reason someone is typing or the box they ticked.
    /** @type {Map<string, Element>} */
    const shown = new Map();
    for (const child of container.children)
      if (child instanceof HTMLElement) shown.set(`${child.dataset.taskId}\u0000${child.dataset.callId}`, child);
    container.replaceChildren(
      ...calls.map((call) => {
        const kept = shown.get(`${call.taskId}\u0000${call.callId}`);
        if (kept !== undefined) return kept;
        const link = el("a", { href: `#task=${encodeURIComponent(call.taskId)}` }, call.objective ?? call.taskId);
        return el(
          "article",
          { className: "inbox-item", dataset: { taskId: call.taskId, callId: call.callId } },
          el("p", { className: "meta" }, "Task: ", link, call.agent === undefined ? "" : ` · agent ${call.agent}`),
          this.options.card(call),
        );
      }),
    );
  }
}
