// @ts-check
// Rendering a task's events as a readable log. Every piece of text from the server goes in
// through textContent (via `el`), never as markup.

import { el, speaker, usageText } from "./dom.js";

export { el, speaker, usageText };

/** @typedef {import("@sema-agent/core/protocol").StoredEvent} StoredEvent */
/** @typedef {NonNullable<import("@sema-agent/core/protocol").ApprovalRequestedEvent["provenance"]>} Provenance */
/**
 * An attachment as an input or a model input carries it (its fields as the protocol has them).
 * @typedef {{ type: string, mediaType?: string, size?: number, filename?: string, url?: string, digest?: string }} Attachment
 */
/** @typedef {(attachment: Record<string, unknown>) => Node} ShowAttachment */

const pre = (/** @type {string} */ text) => el("pre", {}, text);
const json = (/** @type {unknown} */ value) => pre(JSON.stringify(value, null, 2) ?? "");
const time = (/** @type {string} */ at) => new Date(at).toLocaleTimeString();

/**
 * Why the provenance policy held a call (an `approval_requested` v 2's `provenance`): the
 * classification and, per untrusted span, the argument, what matched, where it was read.
 * @param {Provenance | undefined} provenance
 */
export function heldView(provenance) {
  if (provenance === undefined) return undefined;
  const head =
    provenance.classification === "tainted"
      ? `Held: its arguments carry text from untrusted content (a ${provenance.effects} effect).`
      : `Held: untrusted content was in the context it was made in (a ${provenance.effects} effect).`;
  const items = provenance.spans.map((span) => {
    const where = span.tool === undefined ? `the ${span.lane} lane` : `the output of ${span.tool}`;
    const who = span.actor === undefined ? "" : ` from ${speaker(span.actor)}`;
    const what = span.argument === undefined ? "" : `${span.argument} (${span.match} "${span.text}") from `;
    return el("li", {}, `${what}${where}${who}, event ${span.seq}`, span.excerpt && pre(span.excerpt));
  });
  return el("div", { className: "held" }, el("p", { className: "warning" }, head), el("ul", {}, ...items));
}

/** "image/png, 68 bytes, report.pdf": what an attachment is, as text. @param {Record<string, unknown>} attachment */
export function attachmentLabel(attachment) {
  const what = [attachment.mediaType];
  if (attachment.size !== undefined) what.push(`${attachment.size} bytes`);
  if (attachment.filename !== undefined) what.push(attachment.filename);
  if (attachment.url !== undefined) what.push(`at ${attachment.url}`);
  return `${attachment.type === "image" ? "Image" : "File"} (${what.join(", ")})`;
}

/**
 * The attachments of an input or a model input. Without a loader each is its label; a loader
 * (`(attachment) => Node`) may show the image itself. A URL is never loaded by the console.
 * @param {readonly object[] | undefined} attachments
 * @param {ShowAttachment | undefined} show
 */
function attachmentList(attachments, show) {
  if (attachments === undefined || attachments.length === 0) return undefined;
  return el(
    "ul",
    { className: "attachments" },
    ...attachments.map((item) => {
      const attachment = /** @type {Record<string, unknown>} */ (item);
      return el(
        "li",
        { dataset: { attachment: String(attachment.digest ?? attachment.url ?? "") } },
        show?.(attachment) ?? attachmentLabel(attachment),
      );
    }),
  );
}

/**
 * Title and body of one stored event.
 * @param {StoredEvent} event
 * @param {ShowAttachment | undefined} show
 * @returns {[string, (Node | string | undefined | null | false)[]]}
 */
function describe(event, show) {
  switch (event.type) {
    case "task_created":
      return [`Task created by ${speaker(event.actor)}`, [el("p", {}, "Objective: ", event.objective)]];
    case "leg_started":
      return [`Leg started (${event.trigger})`, []];
    case "leg_ended":
      return [`Leg ended: ${event.reason}${event.detail ? ` — ${event.detail}` : ""}`, []];
    case "human_input":
      return [
        "Input from " +
          speaker(event.actor) +
          " on the " +
          event.source +
          " lane, " +
          event.carrier +
          ": " +
          event.delivery,
        [
          event.text === undefined ? undefined : pre(event.text),
          attachmentList(event.attachments, show),
          event.reason && el("p", {}, event.reason),
        ],
      ];
    case "user_message":
      // The exact bytes the model receives, labels and framing included; then what came with them.
      return [
        "Model input (as the model sees it)",
        [
          pre(event.content),
          attachmentList(
            event.parts?.filter((part) => part.type !== "text"),
            show,
          ),
        ],
      ];
    case "model_turn":
      return [
        `Assistant, turn ${event.sessionSeq}${event.model ? ` (${event.model})` : ""}`,
        [
          event.reasoning ? el("details", {}, el("summary", {}, "Reasoning"), pre(event.reasoning)) : undefined,
          event.text === "" ? undefined : pre(event.text),
          ...event.toolCalls.map((call) => el("div", {}, `Calls ${call.name} (${call.callId})`, json(call.input))),
          el("p", { className: "meta" }, `Usage: ${usageText(event.usage)}; finish: ${event.finishReason}`),
        ],
      ];
    case "tool_call_started":
      return [
        `Tool ${event.name} started (${event.callId}, attempt ${event.attempt})`,
        [event.input === undefined ? undefined : el("div", {}, "Input replaced by a hook:", json(event.input))],
      ];
    case "tool_result":
      return [
        "Tool " +
          event.name +
          ": " +
          event.status +
          (event.durationMs === undefined ? "" : ` in ${event.durationMs} ms`) +
          (event.truncated ? " (truncated)" : ""),
        [pre(event.content)],
      ];
    case "approval_requested":
      return [
        `Approval requested for ${event.name} (${event.callId})`,
        [pre(event.inputJson), heldView(event.provenance)],
      ];
    case "approval_decided":
      return [
        `Approval ${event.decision === "approve" ? "granted" : "denied"} by ${speaker(event.actor)}`,
        [event.reason && el("p", {}, event.reason)],
      ];
    case "hook_feedback":
      return [`Hook ${event.hook} (as the model sees it)`, [pre(event.content)]];
    case "engine_note":
      return [`Note: ${event.kind}`, [pre(event.text)]];
    case "interrupt_requested":
      return [`Interrupt requested by ${speaker(event.actor)}`, []];
    case "resume_requested":
      return [`Resume requested by ${speaker(event.actor)}`, []];
    case "child_task":
      return [
        `Child task ${event.childTaskId} ${event.phase}${event.status ? `: ${event.status}` : ""}`,
        [event.result === undefined ? undefined : pre(event.result)],
      ];
    case "parent_notified":
      return ["Parent task told how this task ended", []];
    case "compaction":
      return [`Compacted through event ${event.throughSeq}`, [pre(event.summary)]];
    case "wake_scheduled":
      return [`Wake scheduled for ${new Date(event.due).toLocaleString()}`, [pre(event.text)]];
    case "task_completed":
      return ["Task completed", [pre(event.result)]];
    case "task_failed":
      return [`Task failed: ${event.error.code}`, [pre(event.error.message)]];
    case "task_cancelled":
      return [`Task cancelled by ${speaker(event.actor)}`, [event.reason && el("p", {}, event.reason)]];
    case "task_forked":
      // The events before it are a copy of another task's log, through `source.seq`.
      return [
        `${event.origin === "import" ? "Imported from" : "Forked from"} task ${event.source.taskId} at event ${event.source.seq}`,
        [
          event.actor && el("p", {}, `By ${speaker(event.actor)}`),
          event.detachedChildren && el("p", {}, `Children left with the source: ${event.detachedChildren.join(", ")}`),
          event.model || event.settings ? json({ model: event.model, settings: event.settings }) : undefined,
        ],
      ];
    default:
      return [event.type, [json(event)]];
  }
}

/**
 * One log entry; `data-seq` lets a person (or a test) tell every event apart.
 * @param {StoredEvent} event
 * @param {{ attachment?: ShowAttachment | undefined }} [options] how an attachment is shown (else its label)
 */
export function logEntry(event, options = {}) {
  const [title, body] = describe(event, options.attachment);
  return el(
    "li",
    { dataset: { seq: String(event.seq), type: event.type } },
    el("span", { className: "title" }, title),
    " ",
    el("span", { className: "meta" }, `#${event.seq} at ${time(event.at)}`),
    ...body,
  );
}
