// @ts-check
// Building DOM from data without markup: every text goes in as a text node, every element comes
// from createElement: the page never parses a string as markup (its CSP refuses inline script and style).

/**
 * `el("p", { className: "meta" }, "text", child)`: an element with properties and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {...(Node | string | undefined | null | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("aria-") || key === "role") node.setAttribute(key, String(value));
    else Object.assign(node, { [key]: value });
  }
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** The attributes markdown.js may set, and how. */
const MD_ATTRIBUTES = new Set(["href", "rel", "target", "start", "data-lang"]);

/**
 * Markdown's node tree (markdown.js) as DOM: allowlisted tags and attributes only.
 * @param {readonly import("./markdown.js").MdNode[]} nodes
 * @returns {DocumentFragment}
 */
export function mdToDom(nodes) {
  const fragment = document.createDocumentFragment();
  for (const item of nodes) {
    if (typeof item === "string") {
      fragment.append(document.createTextNode(item));
      continue;
    }
    const node = document.createElement(item.tag);
    for (const [key, value] of Object.entries(item.attrs ?? {}))
      if (MD_ATTRIBUTES.has(key)) node.setAttribute(key, value);
    node.append(mdToDom(item.children));
    fragment.append(node);
  }
  return fragment;
}

/**
 * A JSON value as a readable tree: objects and arrays as open `<details>` with one row per key,
 * scalars as text. Deep values start closed, so a large result stays legible.
 * @param {unknown} value
 * @param {number} [depth]
 * @returns {HTMLElement}
 */
export function jsonTree(value, depth = 0) {
  if (value === null || typeof value !== "object") {
    const kind = value === null ? "null" : typeof value;
    return el(
      "span",
      { className: "json-scalar", dataset: { kind } },
      typeof value === "string" ? value : JSON.stringify(value),
    );
  }
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
  const summary = Array.isArray(value)
    ? `${entries.length} item${entries.length === 1 ? "" : "s"}`
    : `${entries.length} field${entries.length === 1 ? "" : "s"}`;
  const rows = el(
    "dl",
    { className: "json-rows" },
    ...entries.flatMap(([key, item]) => [el("dt", {}, String(key)), el("dd", {}, jsonTree(item, depth + 1))]),
  );
  if (depth === 0) return el("div", { className: "json-tree" }, rows);
  return el("details", { className: "json-tree", open: depth < 2 }, el("summary", {}, summary), rows);
}

/** "1,234 in / 56 out tokens (7 cached)". @param {import("@sema-agent/core/protocol").Usage | undefined} usage */
export function usageText(usage) {
  if (usage === undefined) return "";
  const n = (/** @type {number} */ count) => count.toLocaleString("en-US");
  let text = `${n(usage.inputTokens)} in / ${n(usage.outputTokens)} out tokens`;
  const extra = [];
  if (usage.cachedInputTokens) extra.push(`${n(usage.cachedInputTokens)} cached`);
  if (usage.reasoningTokens) extra.push(`${n(usage.reasoningTokens)} reasoning`);
  if (extra.length > 0) text += ` (${extra.join(", ")})`;
  const cost = /** @type {{ costUsd?: number }} */ (usage).costUsd;
  if (cost !== undefined) text += ` · $${cost.toFixed(4)}`;
  return text;
}

/** "dana" with how sure we are: verified, or relayed by whom. @param {{ id: string, verified: boolean, issuer?: string, displayName?: string } | undefined} actor */
export function speaker(actor) {
  if (actor === undefined) return "unknown";
  if (actor.verified) return `${actor.id} (verified)`;
  return `${actor.id} (unverified${actor.issuer ? `, relayed by ${actor.issuer}` : ""})`;
}

/** "waiting for approval" rather than "parked (approval)": what the task waits for. */
export function statusText(/** @type {string} */ status, /** @type {string | undefined} */ parkedReason) {
  if (status !== "parked") return status;
  if (parkedReason === "approval") return "waiting for approval";
  if (parkedReason === "input") return "waiting for input";
  return parkedReason === undefined ? "parked" : `parked (${parkedReason})`;
}

/** "3 min ago", "2 h ago", a date past a day: when something last happened, from `now`. */
export function ago(/** @type {string} */ at, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - Date.parse(at)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(at).toLocaleDateString();
}

/** The nodes that are there, for `replaceChildren`, which takes no undefined. */
export function present(/** @type {(Node | undefined)[]} */ ...nodes) {
  return /** @type {Node[]} */ (nodes.filter((node) => node !== undefined));
}
