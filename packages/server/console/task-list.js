// @ts-check
// The task list: a page from GET /v1/tasks, kept current by GET /v1/tasks/stream (each frame one
// changed task), with children under their parent and forks under their source, filtered by
// status, agent and objective, and paged ("Load more") for thousands of tasks. Unfiltered, it pages
// through the tasks without a parent (`roots=true`, forks among them: a fork is a root) and a
// row's toggle, "Children (n)" on the rows that have children (the item's `childCount`), loads
// them (`parentTaskId=`), so a child sits under its parent however far apart they were made; a fork
// sits under its source when both are loaded; filtered,
// it lists every task that matches, nested where its parent is listed too. A change redraws that
// task's row alone unless it moves in the tree.
import { ApiError } from "./api.js";
import { ago, el, statusText, usageText } from "./dom.js";
import { sseFrames } from "./stream.js";

/** A row of GET /v1/tasks (TaskListItem in packages/server/src/schemas/tasks.ts). @typedef {import("../src/schemas/tasks.ts").TaskListItemBody} TaskRow */

/**
 * @typedef {object} TaskListOptions
 * @property {HTMLElement} list
 * @property {HTMLButtonElement} more
 * @property {HTMLElement} state
 * @property {HTMLInputElement} q
 * @property {HTMLSelectElement} status
 * @property {HTMLSelectElement} agent
 * @property {() => import("./api.js").Api} api
 * @property {() => string} token
 * @property {(taskId: string) => void} open
 * @property {(item: TaskRow) => void} onChange
 * @property {(error: unknown) => void} fail
 */

const PAGE = 100;

/** Where a task hangs in the tree: its parent, else the task it was forked from. */
const holderOf = (/** @type {TaskRow} */ task) => task.parentTaskId ?? task.forkedFrom?.taskId;

export class TaskList {
  /** @type {Map<string, TaskRow>} */
  items = new Map();
  /** @type {string | undefined} */
  #cursor;
  /** @type {string | undefined} */
  #selected;
  /** @type {Map<string, HTMLLIElement>} */
  #rows = new Map();
  /** @type {AbortController | undefined} */
  #stop;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #typing;
  /** Tasks whose children a person asked for (shown), and those whose children were loaded. */
  /** @type {Set<string>} */
  #expanded = new Set();
  /** @type {Set<string>} */
  #loadedChildren = new Set();
  /** Tasks whose children a person hid. @type {Set<string>} */
  #collapsed = new Set();
  /** How many children of each task are loaded, as of the last `render`. @type {Map<string, number> | undefined} */
  #listed;
  /** How the list keeps current ("Live", or polling), and what it shows. */
  #connection = "";
  #counts = "";

  #showState() {
    this.options.state.textContent = [this.#connection, this.#counts].filter(Boolean).join(" · ");
  }

  constructor(/** @type {TaskListOptions} */ options) {
    this.options = options;
    options.more.addEventListener("click", () => this.#page().catch(options.fail));
    options.status.addEventListener("change", () => this.refresh().catch(options.fail));
    options.agent.addEventListener("change", () => this.refresh().catch(options.fail));
    // The server searches (and pages) by objective; a pause in typing asks it.
    options.q.addEventListener("input", () => {
      clearTimeout(this.#typing);
      this.#typing = setTimeout(() => this.refresh().catch(options.fail), 250);
    });
  }

  async start() {
    this.stop();
    this.#stop = new AbortController();
    await this.refresh();
    this.#follow(this.#stop.signal).catch(() => undefined);
  }

  stop() {
    this.#stop?.abort();
    this.#stop = undefined;
    this.items.clear();
    this.#rows.clear();
    this.options.list.replaceChildren();
  }

  /** The first page again (after a filter changes, or when the stream cannot say what changed). */
  async refresh() {
    this.items.clear();
    this.#loadedChildren.clear();
    this.#cursor = undefined;
    await this.#page();
    // The children a person opened, loaded again.
    for (const taskId of this.#expanded) if (this.items.has(taskId)) await this.#children(taskId);
    if (this.#expanded.size > 0) this.render();
  }

  /** Whether the list is filtered: then it lists every task that matches, not only roots. */
  #filtered() {
    return this.options.status.value !== "" || this.options.agent.value !== "" || this.options.q.value.trim() !== "";
  }

  /** Load `taskId`'s children (a page of them) into the list. @param {string} taskId */
  async #children(taskId) {
    const query = new URLSearchParams({ parentTaskId: taskId, limit: String(PAGE) });
    const page = await this.options.api()("GET", `/v1/tasks?${query}`);
    for (const task of /** @type {TaskRow[]} */ (page.tasks)) this.items.set(task.taskId, task);
    this.#loadedChildren.add(taskId);
  }

  /** Show or hide `taskId`'s children, loading them the first time. @param {string} taskId */
  async #toggle(taskId) {
    if (this.#expanded.has(taskId) || (this.#shownChildren(taskId) && !this.#collapsed.has(taskId))) {
      this.#expanded.delete(taskId);
      this.#collapsed.add(taskId);
    } else {
      this.#collapsed.delete(taskId);
      this.#expanded.add(taskId);
      if (!this.#loadedChildren.has(taskId)) await this.#children(taskId);
    }
    this.render();
    /** @type {HTMLElement | null | undefined} */ (
      this.#rows.get(taskId)?.querySelector(":scope > .tree-toggle")
    )?.focus();
  }

  /** Whether any of `taskId`'s children or forks is in the list. @param {string} taskId */
  #shownChildren(taskId) {
    for (const task of this.items.values()) if (holderOf(task) === taskId) return true;
    return false;
  }

  /** The list's query: its filters, a page's size. */
  #query() {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (!this.#filtered()) query.set("roots", "true");
    const status = this.options.status.value;
    const agent = this.options.agent.value;
    const q = this.options.q.value.trim().slice(0, 200);
    if (status !== "") query.set("status", status);
    if (agent !== "") query.set("agent", agent);
    if (q !== "") query.set("q", q);
    return query;
  }

  async #page() {
    const query = this.#query();
    if (this.#cursor !== undefined) query.set("cursor", this.#cursor);
    const page = await this.options.api()("GET", `/v1/tasks?${query}`);
    for (const task of /** @type {TaskRow[]} */ (page.tasks)) this.items.set(task.taskId, task);
    this.#cursor = page.nextCursor;
    this.options.more.hidden = this.#cursor === undefined;
    this.render();
  }

  /**
   * Follow the list's stream (`event: task`, one changed task a frame). It has no resume: after a
   * drop, and when the server says it saw changes it could not name (`resync`), list again. On a
   * server without the stream, list again every few seconds.
   */
  async #follow(/** @type {AbortSignal} */ signal) {
    let wait = 1000;
    while (!signal.aborted) {
      const query = new URLSearchParams();
      if (this.options.status.value !== "") query.set("status", this.options.status.value);
      if (this.options.agent.value !== "") query.set("agent", this.options.agent.value);
      const response = await fetch(`/v1/tasks/stream?${query}`, {
        headers: { authorization: `Bearer ${this.options.token()}`, accept: "text/event-stream" },
        signal,
      }).catch(() => undefined);
      if (response?.status === 401) return this.options.fail(new ApiError(401, "Unauthorized", "token refused"));
      if (response?.ok === true && response.body !== null) {
        this.#connection = "Live";
        this.#showState();
        wait = 1000;
        // Subscribed once the headers are here: list again, for a task that changed between the
        // list shown and the subscription (the stream starts from now and never replays).
        await this.#refreshQuietly();
        try {
          for await (const frame of sseFrames(response.body, signal)) {
            if (frame.event === "task" && frame.data !== undefined)
              this.upsert(/** @type {TaskRow} */ (JSON.parse(frame.data)));
            else if (frame.event === "resync") await this.#refreshQuietly();
            else if (frame.event === "token_revoked")
              return this.options.fail(new ApiError(401, "Unauthorized", "token revoked"));
          }
        } catch {
          // A dropped connection: list again and follow again, below.
        }
      } else {
        // No stream here (an older server, a store without change notices): poll.
        this.#connection = "Updating every few seconds";
        this.#showState();
        wait = 3000;
      }
      if (signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
      if (!signal.aborted) await this.#refreshQuietly();
    }
  }

  async #refreshQuietly() {
    const query = this.#query();
    const page = await this.options
      .api()("GET", `/v1/tasks?${query}`)
      .catch(() => undefined);
    if (page === undefined) return;
    for (const task of /** @type {TaskRow[]} */ (page.tasks)) this.upsert(task);
  }

  /** A task that changed (from the stream): its row alone, unless it is new or moved in the tree. */
  upsert(/** @type {TaskRow} */ task) {
    const old = this.items.get(task.taskId);
    if (
      old !== undefined &&
      old.updatedAt === task.updatedAt &&
      old.status === task.status &&
      old.openApprovals.length === task.openApprovals.length
    )
      return;
    this.items.set(task.taskId, task);
    this.options.onChange(task);
    const row = this.#rows.get(task.taskId);
    if (old === undefined || row === undefined || holderOf(old) !== holderOf(task) || !this.#shows(task))
      return this.render();
    const fresh = this.#row(task);
    const expanded = row.querySelector(":scope > .tree-toggle")?.getAttribute("aria-expanded") ?? "false";
    fresh.querySelector(":scope > .tree-toggle")?.setAttribute("aria-expanded", expanded);
    const children = row.querySelector(":scope > ul, :scope > .tree-none");
    if (children !== null) fresh.append(children);
    row.replaceWith(fresh);
    this.#rows.set(task.taskId, fresh);
  }

  select(/** @type {string | undefined} */ taskId) {
    this.#selected = taskId;
    for (const [id, row] of this.#rows) {
      const button = row.querySelector(":scope > button");
      if (id === taskId) button?.setAttribute("aria-current", "true");
      else button?.removeAttribute("aria-current");
    }
  }

  /** @returns {boolean} */
  #shows(/** @type {TaskRow} */ task) {
    const q = this.options.q.value.trim().toLowerCase();
    const agent = this.options.agent.value;
    const status = this.options.status.value;
    return (
      (q === "" || task.objective.toLowerCase().includes(q)) &&
      (agent === "" || task.agent === agent) &&
      (status === "" || task.status === status)
    );
  }

  /** The whole list: newest first, each task under its parent or source when that is listed. */
  render() {
    const agents = new Set([...this.items.values()].flatMap((task) => (task.agent === undefined ? [] : [task.agent])));
    const select = this.options.agent;
    const known = new Set([...select.options].map((option) => option.value));
    for (const agent of [...agents].sort()) if (!known.has(agent)) select.append(el("option", { value: agent }, agent));
    this.#listed = new Map();
    for (const task of this.items.values())
      if (task.parentTaskId !== undefined)
        this.#listed.set(task.parentTaskId, (this.#listed.get(task.parentTaskId) ?? 0) + 1);
    const shown = [...this.items.values()].filter((task) => this.#shows(task));
    const ids = new Set(shown.map((task) => task.taskId));
    /** @type {Map<string, TaskRow[]>} */
    const under = new Map();
    const roots = [];
    for (const task of shown) {
      const holder = holderOf(task);
      if (holder !== undefined && ids.has(holder) && holder !== task.taskId)
        under.set(holder, [...(under.get(holder) ?? []), task]);
      else roots.push(task);
    }
    this.#rows.clear();
    const seen = new Set();
    const branch = (/** @type {TaskRow} */ task) => {
      const row = this.#row(task);
      this.#rows.set(task.taskId, row);
      seen.add(task.taskId);
      const children = (under.get(task.taskId) ?? []).filter((child) => !seen.has(child.taskId));
      const shown = !this.#collapsed.has(task.taskId) && (children.length > 0 || this.#expanded.has(task.taskId));
      row.querySelector(":scope > .tree-toggle")?.setAttribute("aria-expanded", String(shown));
      if (!shown) return row;
      if (children.length > 0) row.append(el("ul", { className: "task-children" }, ...children.map(branch)));
      else if (this.#loadedChildren.has(task.taskId))
        row.append(el("p", { className: "meta tree-none" }, "No child tasks"));
      return row;
    };
    this.options.list.replaceChildren(...roots.map(branch));
    this.#counts = `${shown.length} of ${this.items.size} loaded tasks shown`;
    this.#showState();
  }

  /** @returns {HTMLLIElement} */
  #row(/** @type {TaskRow} */ task) {
    const waiting = task.openApprovals.length > 0;
    const who = task.createdBy === undefined ? undefined : `by ${task.createdBy.actorId}`;
    const facts = [task.agent ?? "default", task.model, who, ago(task.updatedAt), usageText(task.usage)].filter(
      Boolean,
    );
    const open = el(
      "button",
      { type: "button", className: "task-row", dataset: { taskId: task.taskId } },
      el("span", { className: "objective" }, task.objective.split("\n")[0]?.slice(0, 140) || task.taskId),
      el(
        "span",
        { className: "row-facts" },
        el(
          "span",
          { className: "status", dataset: { status: waiting ? "approval" : task.status } },
          statusText(task.status, task.parkedReason),
        ),
        waiting
          ? el("span", { className: "badge", dataset: { approval: "true" } }, `${task.openApprovals.length} to approve`)
          : undefined,
        task.forkedFrom === undefined ? undefined : el("span", { className: "badge" }, "fork"),
        el("span", { className: "meta" }, facts.join(" · ")),
      ),
    );
    if (task.taskId === this.#selected) open.setAttribute("aria-current", "true");
    open.addEventListener("click", () => this.options.open(task.taskId));
    const children = this.#childCount(task);
    // Only where there are children (a server that cannot count them: on every row, unlabelled).
    if (children === 0) return el("li", { dataset: { taskId: task.taskId } }, open);
    const name = task.objective.split("\n")[0]?.slice(0, 60) || task.taskId;
    const toggle = el(
      "button",
      {
        type: "button",
        className: "tree-toggle",
        title: "Child tasks",
        "aria-expanded": "false",
        "aria-label": children === undefined ? `Children of ${name}` : `Children (${children}) of ${name}`,
      },
      children === undefined ? "Children" : `Children (${children})`,
    );
    toggle.addEventListener("click", () => this.#toggle(task.taskId).catch(this.options.fail));
    return el("li", { dataset: { taskId: task.taskId } }, open, toggle);
  }

  /**
   * How many children `task` has: its item's count, or more when more are listed (a child the
   * stream brought after its parent's last frame); undefined when the server does not count them.
   * @returns {number | undefined}
   */
  #childCount(/** @type {TaskRow} */ task) {
    const listed = this.#listed?.get(task.taskId) ?? 0;
    if (task.childCount === undefined) return listed > 0 ? listed : undefined;
    return Math.max(task.childCount, listed);
  }
}
