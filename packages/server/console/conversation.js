// @ts-check
// A task as a conversation, drawn from the fold (fold.js) and kept current by it: the result at
// the top, then each message once, the assistant's Markdown, tool calls as cards. `update` redraws
// only the items an event touched; streamed text is appended as text nodes, once per frame, so a
// long answer costs what it is long (never `textContent +=`, which copies it all per delta).
// Only the messages near the viewport are elements (window-list.js): a task of thousands of turns
// opens with a screenful drawn, and scrolling draws the rest as it comes into view.
import { el, jsonTree, mdToDom, present, speaker, usageText } from "./dom.js";
import { parseMarkdown } from "./markdown.js";
import { WindowedList } from "./window-list.js";

/** @typedef {import("./fold.js").TaskFold} TaskFold */
/** @typedef {import("./fold.js").Change} Change */
/** @typedef {import("./fold.js").Item} Item */
/** @typedef {import("./fold.js").ToolItem} ToolItem */

/**
 * @typedef {object} ConversationHooks
 * @property {(seq: number) => void} onFork "Fork from here" on an item
 * @property {(attachment: Record<string, unknown>) => Node} attachment an attachment as shown
 * @property {(request: import("./fold.js").ApprovalRequest) => HTMLElement} approvalCard the decision controls
 */

/** The untrusted fence's lines around a tool's output, off: the card says it instead. */
const FENCE_LINE = /^\s*<\/?untrusted-[0-9a-f-]+[^>]*>\s*$/;

/**
 * Usage with its cost, for `usageText`, when there is one.
 * @param {import("./fold.js").Usage} usage @param {number | undefined} costUsd
 */
const withCost = (usage, costUsd) => (costUsd === undefined ? usage : { ...usage, costUsd });

const STATE_TEXT = {
  asked: "asked",
  waiting: "waiting for approval",
  running: "running",
  ok: "ok",
  error: "error",
  denied: "denied",
  interrupted: "interrupted",
};

export class ConversationView {
  /** @type {TaskFold | undefined} */
  #fold;
  /** @type {HTMLElement | undefined} */
  #streaming;
  /** @type {Map<string, { body: HTMLElement, pending: string }>} */
  #parts = new Map();
  #frame = 0;

  /**
   * @param {{ list: HTMLElement, result: HTMLElement, usage: HTMLElement, announce: HTMLElement }} where
   * @param {ConversationHooks} hooks
   */
  constructor(where, hooks) {
    this.where = where;
    this.hooks = hooks;
    this.window = new WindowedList(
      where.list,
      (key) => {
        const item = this.#fold?.items.get(key);
        return item === undefined ? undefined : this.#render(item);
      },
      { before: () => this.#streaming ?? null },
    );
  }

  clear() {
    this.#fold = undefined;
    this.#endStream();
    this.window.clear();
    this.where.result.replaceChildren();
    this.where.result.hidden = true;
    this.where.usage.textContent = "";
  }

  /** Redraw what `change` says the fold changed; `live` when it came from the stream, not a catch-up. */
  update(/** @type {TaskFold} */ fold, /** @type {Change} */ change, live = true) {
    this.#fold = fold;
    for (const key of change.items) {
      const item = fold.items.get(key);
      if (item === undefined) continue;
      // Drawn again only if it is drawn; a card a person opened stays open.
      if (this.window.has(key)) this.window.refresh(key);
      else this.window.push(key);
      if (item.kind === "assistant") {
        this.#endStream();
        // The live region hears whole messages, never the deltas that built them.
        if (live && item.text !== "") this.where.announce.textContent = `Assistant: ${item.text}`;
      }
    }
    if (change.usage) this.where.usage.textContent = usageText(withCost(fold.usage, fold.costUsd));
    if (change.result && fold.result !== undefined) this.#result(fold.result);
  }

  /** An ephemeral delta from the stream: text, reasoning or a tool's input as the model writes it. */
  live(/** @type {{ type: string, delta?: string, callId?: string, name?: string }} */ event) {
    if (event.type === "text_delta") this.#append("text", "Assistant", event.delta ?? "");
    else if (event.type === "reasoning_delta") this.#append("reasoning", "Reasoning", event.delta ?? "");
    else if (event.type === "tool_input_start") this.#append(`call:${event.callId}`, `Calling ${event.name}`, "");
    else if (event.type === "tool_input_delta")
      this.#append(`call:${event.callId}`, "Calling a tool", event.delta ?? "");
  }

  /** Deltas missed while disconnected would garble the text: drop it, the stored turn follows. */
  dropLive() {
    this.#endStream();
  }

  /** @param {string} key @param {string} label @param {string} delta */
  #append(key, label, delta) {
    if (this.#streaming === undefined) {
      this.#streaming = el("article", {
        className: "msg assistant streaming",
        "aria-busy": "true",
        dataset: { live: "stream" },
      });
      this.where.list.append(this.#streaming);
    }
    let part = this.#parts.get(key);
    if (part === undefined) {
      const body = el("div", { className: key === "text" ? "stream-text" : "stream-part" });
      this.#streaming.append(
        el("div", { dataset: { live: key } }, el("span", { className: "who" }, `${label} (streaming)`), body),
      );
      part = { body, pending: "" };
      this.#parts.set(key, part);
    }
    part.pending += delta;
    if (this.#frame === 0) this.#frame = requestAnimationFrame(() => this.#flush());
  }

  #flush() {
    this.#frame = 0;
    for (const part of this.#parts.values())
      if (part.pending !== "") {
        part.body.append(document.createTextNode(part.pending));
        part.pending = "";
      }
  }

  #endStream() {
    if (this.#frame !== 0) cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#streaming?.remove();
    this.#streaming = undefined;
    this.#parts.clear();
  }

  /** @param {NonNullable<TaskFold["result"]>} result */
  #result(result) {
    const box = this.where.result;
    box.hidden = false;
    box.dataset.status = result.status;
    if (result.status === "completed") {
      const body =
        result.value === undefined
          ? el("div", { className: "markdown" }, mdToDom(parseMarkdown(result.text)))
          : jsonTree(result.value);
      const raw = el("details", {}, el("summary", {}, "As text"), el("pre", {}, result.text));
      box.replaceChildren(...present(el("h3", {}, "Result"), body, result.value === undefined ? undefined : raw));
    } else if (result.status === "failed")
      box.replaceChildren(el("h3", {}, "Failed"), el("p", {}, `${result.code}: ${result.message}`));
    else
      box.replaceChildren(
        ...present(el("h3", {}, "Cancelled"), result.reason === undefined ? undefined : el("p", {}, result.reason)),
      );
  }

  /** @param {number} seq */
  #forkButton(seq) {
    const button = el(
      "button",
      { type: "button", className: "fork", title: `Start a new task from this task's log through event ${seq}` },
      "Fork from here",
    );
    button.addEventListener("click", () => this.hooks.onFork(seq));
    return button;
  }

  /** @returns {HTMLElement} */
  #render(/** @type {Item} */ item) {
    switch (item.kind) {
      case "message": {
        const verified = item.actor?.verified === true;
        const head = el(
          "header",
          {},
          el("span", { className: "who" }, item.actor?.displayName ?? item.actor?.id ?? "unknown"),
          el(
            "span",
            { className: "badge", dataset: { verified: String(verified) } },
            verified ? "verified" : "unverified",
          ),
          el(
            "span",
            { className: "meta" },
            `${item.lane} lane · ${item.carrier === "objective" ? "objective" : `${item.carrier}, ${item.delivery}`}`,
          ),
          this.#forkButton(item.seq),
        );
        if (item.actor !== undefined) head.title = `From ${speaker(item.actor)}`;
        const attachments =
          item.attachments.length === 0
            ? undefined
            : el(
                "ul",
                { className: "attachments" },
                ...item.attachments.map((attachment) => {
                  const value = /** @type {Record<string, unknown>} */ (attachment);
                  return el(
                    "li",
                    { dataset: { attachment: String(value.digest ?? value.url ?? "") } },
                    this.hooks.attachment(value),
                  );
                }),
              );
        return el(
          "article",
          { className: "msg person", dataset: { key: item.key, seq: String(item.seq), delivery: item.delivery } },
          head,
          el("p", { className: "text" }, item.text),
          attachments,
          item.framed === undefined
            ? undefined
            : el(
                "details",
                { className: "framed" },
                el("summary", {}, "Exact bytes the model received"),
                el("pre", {}, item.framed),
              ),
        );
      }
      case "assistant":
        return el(
          "article",
          { className: "msg assistant", dataset: { key: item.key, seq: String(item.seq) } },
          el(
            "header",
            {},
            el("span", { className: "who" }, "Assistant"),
            el("span", { className: "meta" }, `turn ${item.turn}${item.model ? ` · ${item.model}` : ""}`),
            this.#forkButton(item.seq),
          ),
          item.reasoning === undefined
            ? undefined
            : el("details", { className: "reasoning" }, el("summary", {}, "Reasoning"), el("pre", {}, item.reasoning)),
          item.text === "" ? undefined : el("div", { className: "markdown" }, mdToDom(parseMarkdown(item.text))),
          el(
            "p",
            { className: "meta usage" },
            `${usageText(withCost(item.usage, item.costUsd))} · finish: ${item.finishReason}`,
          ),
        );
      case "tool":
        return this.#tool(item);
      case "note":
        return el(
          "p",
          { className: "note", dataset: { key: item.key, seq: String(item.seq), type: item.type } },
          item.text,
        );
    }
  }

  /** @returns {HTMLElement} */
  #tool(/** @type {ToolItem} */ item) {
    const summary = el(
      "summary",
      {},
      el("span", { className: "tool-name" }, item.name),
      el("span", { className: "badge", dataset: { state: item.state } }, STATE_TEXT[item.state]),
      item.untrusted
        ? el("span", { className: "badge", dataset: { untrusted: "true" } }, "untrusted output")
        : undefined,
      item.durationMs === undefined ? undefined : el("span", { className: "meta" }, `${item.durationMs} ms`),
    );
    const output =
      item.output === undefined
        ? undefined
        : el(
            "section",
            { className: "tool-output", dataset: { untrusted: String(item.untrusted) } },
            el("h4", {}, item.untrusted ? "Output (untrusted: text from outside, fenced for the model)" : "Output"),
            el(
              "pre",
              {},
              item.untrusted
                ? item.output
                    .split("\n")
                    .filter((line) => !FENCE_LINE.test(line))
                    .join("\n")
                : item.output,
            ),
          );
    const decision =
      item.decision === undefined
        ? undefined
        : el(
            "p",
            { className: "meta" },
            `${item.decision.decision === "approve" ? "Approved" : "Denied"} by ${speaker(item.decision.actor)}` +
              (item.decision.scope === "tool-for-task" ? " for every call of this tool in this task" : "") +
              (item.decision.reason ? `: ${item.decision.reason}` : ""),
          );
    return el(
      "details",
      {
        className: "tool-card",
        open: item.state === "waiting",
        dataset: { key: item.key, callId: item.callId, state: item.state },
      },
      summary,
      el("h4", {}, "Input"),
      el("pre", {}, JSON.stringify(item.input, null, 2) ?? ""),
      item.state === "waiting" && item.approval !== undefined ? this.hooks.approvalCard(item.approval) : undefined,
      decision,
      output,
      item.value === undefined
        ? undefined
        : el("details", {}, el("summary", {}, "The tool's own output"), jsonTree(item.value)),
    );
  }
}
