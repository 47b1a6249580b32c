// @ts-check
// A call waiting for a decision, as a card a person can decide from: the exact input, why the
// provenance policy held it, its digest, a reason, "always for this task", Approve and Deny. The
// task's conversation and the approvals inbox (across tasks) both use it.
import { el } from "./dom.js";
import { heldView } from "./task-log.js";

/**
 * What a card needs: the call (from `approval_requested` or the inbox) and where it belongs.
 * @typedef {object} ApprovalCall
 * @property {string} taskId
 * @property {string} callId
 * @property {string} name
 * @property {string} digest
 * @property {string} inputJson
 * @property {import("@sema-agent/core/protocol").CallProvenance} [provenance]
 * @property {string} [objective] the task's objective, in the inbox
 * @property {string} [agent]
 */

/**
 * @typedef {(decision: { taskId: string, callId: string, decision: "approve" | "deny", digest: string, reason?: string, scope: "call" | "tool-for-task" }) => Promise<void>} Decide
 */

let cards = 0;

/** The input as indented JSON, or as sent when it is not JSON. */
function pretty(/** @type {string} */ json) {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/** One card. `decide` sends the decision; the card disables itself while it is sent. */
export function approvalCard(/** @type {ApprovalCall} */ call, /** @type {Decide} */ decide) {
  cards += 1;
  const id = `approval-${cards}`;
  const reason = el("input", { id: `${id}-reason`, type: "text", autocomplete: "off", placeholder: "Why (optional)" });
  const always = el("input", { id: `${id}-always`, type: "checkbox" });
  const approve = el("button", { type: "button", className: "approve" }, "Approve");
  const deny = el("button", { type: "button", className: "deny" }, "Deny");
  const status = el("p", { className: "meta", role: "status" });
  const send = (/** @type {"approve" | "deny"} */ decision) => async () => {
    for (const control of [approve, deny, reason, always]) control.disabled = true;
    status.textContent = "Sending…";
    const text = reason.value.trim();
    try {
      await decide({
        taskId: call.taskId,
        callId: call.callId,
        decision,
        digest: call.digest,
        ...(text === "" ? {} : { reason: text }),
        scope: always.checked ? "tool-for-task" : "call",
      });
      status.textContent = decision === "approve" ? "Approved." : "Denied.";
    } catch (error) {
      for (const control of [approve, deny, reason, always]) control.disabled = false;
      status.textContent = error instanceof Error ? error.message : String(error);
    }
  };
  approve.addEventListener("click", send("approve"));
  deny.addEventListener("click", send("deny"));
  return el(
    "section",
    {
      className: "approval",
      dataset: { callId: call.callId, taskId: call.taskId },
      "aria-label": `Approval of ${call.name}`,
    },
    el(
      "p",
      { className: "approval-head" },
      el("strong", {}, "Waiting for your approval: "),
      `${call.name} wants to run with`,
    ),
    el("pre", {}, pretty(call.inputJson)),
    heldView(call.provenance),
    el("p", { className: "meta digest" }, `SHA-256 ${call.digest}`),
    el(
      "div",
      { className: "decide" },
      el("label", { htmlFor: reason.id }, "Reason"),
      reason,
      el("label", { className: "check" }, always, "Always for this task"),
      approve,
      deny,
    ),
    status,
  );
}
