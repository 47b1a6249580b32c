// @ts-check
// The task's trace as a waterfall: the spans GET /v1/tasks/{id}/trace rebuilds from the log (the
// one mapping of @sema-agent/otel, so this view and any OTLP backend show the same spans), nested
// by parent, on one time axis. Every text from the server goes in through `el` (textContent).

import { formatDuration } from "./timeline.js";

/** @typedef {typeof import("./dom.js").el} El */
/**
 * An OTLP/JSON AnyValue.
 * @typedef {{ stringValue?: string, boolValue?: boolean, intValue?: string | number, doubleValue?: number, arrayValue?: { values?: AnyValue[] } }} AnyValue
 */
/** @typedef {{ key: string, value?: AnyValue }} KeyValue */
/**
 * A span of an OTLP/JSON ExportTraceServiceRequest, as GET /v1/tasks/{id}/trace gives it.
 * @typedef {object} OtlpSpan
 * @property {string} spanId
 * @property {string} [parentSpanId]
 * @property {string} traceId
 * @property {string} name
 * @property {string} startTimeUnixNano
 * @property {string} endTimeUnixNano
 * @property {KeyValue[]} [attributes]
 * @property {{ name: string, timeUnixNano: string, attributes?: KeyValue[] }[]} [events]
 * @property {{ code?: number, message?: string }} [status]
 */
/** @typedef {{ resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] }} OtlpRequest */
/** @typedef {{ name: string, at: number, attributes: Record<string, unknown> }} SpanEvent */
/**
 * A span as the waterfall draws it.
 * @typedef {object} Span
 * @property {string} id
 * @property {string | undefined} parentId
 * @property {string} traceId
 * @property {string} name
 * @property {"agent" | "chat" | "tool" | "leg" | "other"} kind
 * @property {number} start ms since the epoch
 * @property {number} end
 * @property {Record<string, unknown>} attributes
 * @property {SpanEvent[]} events
 * @property {{ code: string, message: string | undefined }} status
 * @property {number} [depth] its depth in the tree, once ordered
 */
/** @typedef {{ traceId: string | undefined, start: number, end: number, spans: Span[] }} Trace */

/** OTLP/JSON nanoseconds (a decimal string) → milliseconds since the epoch. */
function millis(/** @type {string} */ nanos) {
  try {
    return Number(BigInt(nanos) / 1000n) / 1000;
  } catch {
    return 0;
  }
}

/**
 * An OTLP AnyValue as the plain value it holds (arrays as arrays).
 * @param {AnyValue | undefined | null} value
 * @returns {unknown}
 */
function plain(value) {
  if (value === undefined || value === null) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("arrayValue" in value) return (value.arrayValue?.values ?? []).map(plain);
  return JSON.stringify(value);
}

function attributesOf(/** @type {KeyValue[] | undefined} */ list) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const { key, value } of list ?? []) out[key] = plain(value);
  return out;
}

/**
 * What kind of span: the task, a leg, a model call, a tool call.
 * @param {string} name @param {Record<string, unknown>} attributes
 * @returns {Span["kind"]}
 */
function kindOf(name, attributes) {
  const operation = attributes["gen_ai.operation.name"];
  if (operation === "invoke_agent") return "agent";
  if (operation === "chat") return "chat";
  if (operation === "execute_tool") return "tool";
  if (name === "sema.leg") return "leg";
  return "other";
}

/** @type {Record<number, string>} */
const STATUS = { 0: "unset", 1: "ok", 2: "error" };

/**
 * `{ traceId, start, end, spans }` of an OTLP/JSON ExportTraceServiceRequest: each span
 * `{ id, parentId?, name, kind, start, end, attributes, events, status, depth }` in waterfall order
 * (depth first, children by start time). A span whose parent is not in the trace is a root.
 * @param {OtlpRequest | undefined} request
 * @returns {Trace}
 */
export function parseTrace(request) {
  /** @type {Span[]} */
  const spans = [];
  for (const resource of request?.resourceSpans ?? [])
    for (const scope of resource.scopeSpans ?? [])
      for (const span of scope.spans ?? []) {
        const attributes = attributesOf(span.attributes);
        spans.push({
          id: span.spanId,
          parentId: span.parentSpanId || undefined,
          traceId: span.traceId,
          name: span.name,
          kind: kindOf(span.name, attributes),
          start: millis(span.startTimeUnixNano),
          end: millis(span.endTimeUnixNano),
          attributes,
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            at: millis(event.timeUnixNano),
            attributes: attributesOf(event.attributes),
          })),
          status: { code: STATUS[span.status?.code ?? 0] ?? "unset", message: span.status?.message },
        });
      }
  const byId = new Map(spans.map((span) => [span.id, span]));
  /** @type {Map<string, Span[]>} */
  const children = new Map();
  /** @type {Span[]} */
  const roots = [];
  for (const span of spans) {
    const parent = span.parentId === undefined ? undefined : byId.get(span.parentId);
    if (parent === undefined || parent === span) roots.push(span);
    else children.set(parent.id, [...(children.get(parent.id) ?? []), span]);
  }
  /** @type {Span[]} */
  const ordered = [];
  const byStart = (/** @type {Span} */ a, /** @type {Span} */ b) => a.start - b.start || a.end - b.end;
  const visit = (/** @type {Span} */ span, /** @type {number} */ depth) => {
    if (span.depth !== undefined) return; // a cycle in bad data: show each span once
    span.depth = depth;
    ordered.push(span);
    for (const child of (children.get(span.id) ?? []).sort(byStart)) visit(child, depth + 1);
  };
  for (const root of roots.sort(byStart)) visit(root, 0);
  const start = Math.min(...ordered.map((span) => span.start));
  const end = Math.max(...ordered.map((span) => Math.max(span.end, ...span.events.map((event) => event.at))));
  return {
    traceId: ordered[0]?.traceId,
    start: Number.isFinite(start) ? start : 0,
    end: Number.isFinite(end) ? end : 0,
    spans: ordered,
  };
}

/** "1.2 s" for a span, with sub-millisecond spans shown as such. @param {{ start: number, end: number }} span */
export function spanDuration(span) {
  const duration = Math.max(0, span.end - span.start);
  return duration > 0 && duration < 1 ? "< 1 ms" : formatDuration(Math.round(duration));
}

/** Round steps for the time axis (1, 2, 2.5 or 5 times a power of ten): three to five ticks. */
export function axisTicks(/** @type {number} */ total) {
  if (!(total > 0)) return [0];
  const raw = total / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw) ?? raw;
  /** @type {number[]} */
  const ticks = [];
  for (let index = 0; index * step <= total * 1.0001; index += 1) ticks.push(index * step);
  return ticks;
}

function axisLabel(/** @type {number} */ ms) {
  if (ms === 0) return "0";
  if (ms < 1000) return `${Math.round(ms * 100) / 100} ms`;
  if (ms < 60_000) return `${Math.round(ms / 10) / 100} s`;
  return formatDuration(Math.round(ms));
}

/** Marks worth a glance, as `[data name, label]`: open, in doubt, interrupted, an error. @param {Span} span */
function marksOf(span) {
  /** @type {[string, string][]} */
  const marks = [];
  if (span.attributes["sema.span.open"] === true) marks.push(["open", "open"]);
  if (span.attributes["sema.tool.in_doubt"] === true) marks.push(["in-doubt", "in doubt"]);
  if (span.attributes["sema.tool.interrupted"] === true) marks.push(["interrupted", "interrupted"]);
  const toolStatus = span.attributes["sema.tool.status"];
  if (toolStatus === "denied") marks.push(["denied", "denied"]);
  if (span.status.code === "error") {
    const why = String(span.attributes["error.type"] ?? span.status.message ?? "error");
    // An in-doubt or interrupted call is an error too; its mark says so already.
    if (!marks.some(([, text]) => text === why.replaceAll("_", " "))) marks.push(["error", why]);
  }
  return marks;
}

/** What a span event is, for its tick's colour: an input, an approval, anything else. */
function eventKind(/** @type {string} */ name) {
  if (name === "sema.human_input") return "input";
  if (name.startsWith("sema.approval.")) return "approval";
  return "other";
}

/**
 * Render `trace` (from parseTrace) into `container`: an axis and one row per span. `onSelect(span)`
 * is called when a row is chosen; `selectedId` marks the chosen one. Positions are set through the
 * CSSOM, which the page's strict Content-Security-Policy allows (style attributes it does not).
 * @param {HTMLElement} container
 * @param {Trace} trace
 * @param {{ el: El, selectedId?: string | undefined, onSelect: (span: Span) => void }} options
 */
export function renderWaterfall(container, trace, { el, selectedId, onSelect }) {
  const total = Math.max(1, trace.end - trace.start);
  const percent = (/** @type {number} */ at) => `${Math.min(100, Math.max(0, ((at - trace.start) / total) * 100))}%`;
  const ticks = axisTicks(total);
  // The ticks' guide lines, behind each row's bar.
  const guides = () =>
    ticks.slice(1).map((at) => {
      const guide = el("span", { className: "wf-guide" });
      guide.style.left = percent(trace.start + at);
      return guide;
    });
  const axis = el(
    "div",
    { className: "wf-axis", ariaHidden: "true" },
    el("span", { className: "wf-label-head" }, "Span"),
    el(
      "span",
      { className: "wf-scale" },
      ...ticks.map((at) => {
        const tick = el("span", { className: "wf-scale-tick" }, axisLabel(at));
        tick.style.left = percent(trace.start + at);
        return tick;
      }),
    ),
    el("span", { className: "wf-duration-head" }, "Duration"),
  );
  const rows = trace.spans.map((span) => {
    const marks = marksOf(span);
    const label = el(
      "button",
      { type: "button", className: "wf-label", title: span.name },
      el("span", { className: "wf-name" }, span.name),
      ...marks.map(([mark, text]) => el("span", { className: "wf-mark", dataset: { mark } }, text)),
    );
    label.style.paddingLeft = `${0.4 + (span.depth ?? 0) * 1.1}rem`;
    label.setAttribute("aria-pressed", String(span.id === selectedId));
    label.addEventListener("click", () => onSelect(span));
    const bar = el("span", { className: "wf-bar" });
    bar.style.left = percent(span.start);
    bar.style.width = `max(2px, calc(${percent(span.end)} - ${percent(span.start)}))`;
    const eventTicks = span.events.map((event) => {
      const tick = el("span", {
        className: "wf-tick",
        title: `${event.name} at +${formatDuration(Math.round(event.at - trace.start))}`,
        dataset: { event: event.name, eventKind: eventKind(event.name) },
      });
      tick.style.left = percent(event.at);
      return tick;
    });
    const row = el(
      "li",
      {
        className: "wf-row",
        dataset: { spanId: span.id, kind: span.kind, status: span.status.code, depth: String(span.depth) },
      },
      label,
      el("span", { className: "wf-track" }, ...guides(), bar, ...eventTicks),
      el("span", { className: "wf-duration" }, spanDuration(span) + tokensOf(span)),
    );
    for (const [mark] of marks) row.dataset[mark === "in-doubt" ? "inDoubt" : mark] = "true";
    if (span.id === selectedId) row.setAttribute("aria-current", "true");
    return row;
  });
  container.replaceChildren(axis, el("ol", { className: "wf-rows", ariaLabel: "Spans" }, ...rows));
}

/** " · 1,234 tok" on a model call's span (its input and output tokens), else "". */
function tokensOf(/** @type {Span} */ span) {
  const input = span.attributes["gen_ai.usage.input_tokens"];
  const output = span.attributes["gen_ai.usage.output_tokens"];
  if (typeof input !== "number" && typeof output !== "number") return "";
  const count = (typeof input === "number" ? input : 0) + (typeof output === "number" ? output : 0);
  return ` · ${count.toLocaleString("en-US")} tok`;
}

/** The texts a span carries when the server lets traces hold content: prompts, completions, tool input and output. @type {[string, string][]} */
const CONTENT = [
  ["gen_ai.input.messages", "Input messages"],
  ["gen_ai.output.messages", "Output messages"],
  ["gen_ai.tool.call.arguments", "Tool input"],
  ["gen_ai.tool.call.result", "Tool output"],
];

/** The span's content, readable (JSON indented), before its attributes; nothing when it has none. */
function contentOf(/** @type {Span} */ span, /** @type {El} */ el) {
  const parts = CONTENT.filter(([key]) => typeof span.attributes[key] === "string").map(([key, label]) => {
    const text = String(span.attributes[key]);
    let shown = text;
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not JSON (a tool's text output): shown as it is.
    }
    return el("section", { className: "span-content", dataset: { key } }, el("h5", {}, label), el("pre", {}, shown));
  });
  return parts.length === 0 ? undefined : el("div", {}, ...parts);
}

const valueText = (/** @type {unknown} */ value) => (typeof value === "string" ? value : JSON.stringify(value));

function attributeTable(/** @type {Record<string, unknown>} */ attributes, /** @type {El} */ el) {
  const entries = Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return el("p", { className: "meta" }, "No attributes.");
  return el(
    "table",
    { className: "wf-attributes" },
    el(
      "tbody",
      {},
      ...entries.map(([key, value]) =>
        el("tr", { dataset: { key } }, el("th", { scope: "row" }, key), el("td", {}, valueText(value))),
      ),
    ),
  );
}

/**
 * The chosen span's details into `container`: times, status, attributes, its events.
 * @param {HTMLElement} container
 * @param {Span | undefined} span none: the panel is hidden
 * @param {Trace} [trace]
 * @param {El} [el]
 */
export function renderSpanDetail(container, span, trace, el) {
  if (span === undefined) {
    container.hidden = true;
    container.replaceChildren();
    return;
  }
  if (trace === undefined || el === undefined) throw new Error("renderSpanDetail: a span needs its trace and `el`");
  const offset = (/** @type {number} */ at) => `+${formatDuration(Math.round(at - trace.start))}`;
  container.hidden = false;
  const parts = [
    el("h4", {}, span.name),
    el(
      "p",
      { className: "meta" },
      `${offset(span.start)} for ${spanDuration(span)} · status ${span.status.code}` +
        (span.status.message ? ` (${span.status.message})` : "") +
        ` · span ${span.id}`,
    ),
    contentOf(span, el),
    attributeTable(span.attributes, el),
    span.events.length === 0
      ? undefined
      : el(
          "ol",
          { className: "wf-events", ariaLabel: "Span events" },
          ...span.events.map((event) =>
            el(
              "li",
              { dataset: { event: event.name } },
              el("span", { className: "title" }, `${event.name} ${offset(event.at)}`),
              attributeTable(event.attributes, el),
            ),
          ),
        ),
  ];
  container.replaceChildren(...parts.filter((part) => part !== undefined));
}
