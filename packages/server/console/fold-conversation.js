// @ts-check
// The conversation's part of the fold (fold.js): each person's message once however many events
// carry it (received, applied, the exact framed bytes), the assistant's turns, tool calls with
// their input, output and approval, the notes worth a line, the open approvals and the result.
// Pure: no DOM, no clock (every time is an event's `at`).

/** @typedef {import("@sema-agent/core/protocol").StoredEvent} StoredEvent */
/** @typedef {import("@sema-agent/core/protocol").Usage} Usage */
/** @typedef {import("@sema-agent/core/protocol").ApprovalRequestedEvent & { taskId: string, seq: number, at: string }} ApprovalRequest */
/** @typedef {import("@sema-agent/core/protocol").ApprovalDecidedEvent} ApprovalDecision */
/** @typedef {{ id: string, verified: boolean, issuer?: string, displayName?: string }} Actor */

/**
 * A person's message, once however many events carry it (received, applied, the framed entry).
 * @typedef {object} MessageItem
 * @property {"message"} kind
 * @property {string} key
 * @property {number} seq the first event that carried it
 * @property {string} at
 * @property {Actor} [actor]
 * @property {string} lane the input's source (`user`, `operator`, …); `user` for the objective
 * @property {string} carrier `objective`, `steer`, `nextTurn`, …
 * @property {string} delivery the latest: `received`, `parked`, `applied`, `dropped`
 * @property {string} text
 * @property {readonly object[]} attachments
 * @property {string} [framed] the exact text the model received, labels and framing included
 */

/**
 * @typedef {object} AssistantItem
 * @property {"assistant"} kind
 * @property {string} key
 * @property {number} seq
 * @property {string} at
 * @property {string} legId
 * @property {number} turn the session's turn number
 * @property {string} text
 * @property {string} [reasoning]
 * @property {string} [model]
 * @property {Usage} usage
 * @property {string} pricedModel the model that ran it (its own `model`, else the task's at that point; "" when the log names none)
 * @property {number} [costUsd] its tokens at that model's price, once the fold has one
 * @property {string} finishReason
 * @property {string[]} callIds the tool calls it asked for, in order
 */

/**
 * @typedef {object} ToolItem
 * @property {"tool"} kind
 * @property {string} key
 * @property {number} seq the model turn that asked for it (or the event that first named it)
 * @property {string} at
 * @property {string} callId
 * @property {string} name
 * @property {unknown} input
 * @property {"asked" | "waiting" | "running" | "ok" | "error" | "denied" | "interrupted"} state
 * @property {string} [output] exactly what the model received
 * @property {unknown} [value] the tool's own output
 * @property {boolean} untrusted the output was fenced as untrusted content
 * @property {number} [durationMs]
 * @property {number} attempt
 * @property {ApprovalRequest} [approval] the request, while waiting and after
 * @property {ApprovalDecision} [decision]
 */

/**
 * Something worth a line in the conversation that is not a message: a note, a child, a fork, an end.
 * @typedef {object} NoteItem
 * @property {"note"} kind
 * @property {string} key
 * @property {number} seq
 * @property {string} at
 * @property {string} type the event's type
 * @property {string} text
 */

/** @typedef {MessageItem | AssistantItem | ToolItem | NoteItem} Item */

/**
 * The result of a finished task: its text, and the value when the text is structured output (JSON).
 * @typedef {{ status: "completed", text: string, value?: unknown } | { status: "failed", code: string, message: string } | { status: "cancelled", reason?: string }} Result
 */

/**
 * What one `add` touched in the conversation: the items (by key) that are new or changed, and
 * whether the result or the open approvals moved.
 * @typedef {{ items: string[], result: boolean, approvals: boolean }} ConversationChange
 */

const FENCE = /^\s*<untrusted-[0-9a-f]+/;

/** A completed task's text as a value when it is a JSON object or array (structured output). */
export function structured(/** @type {string} */ text) {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    return /** @type {unknown} */ (JSON.parse(trimmed));
  } catch {
    return undefined;
  }
}

export class ConversationFold {
  /** Conversation items by key. @type {Map<string, Item>} */
  items = new Map();
  /** Their keys in the order they appeared. @type {string[]} */
  order = [];
  /** @type {Result | undefined} */
  result = undefined;
  /** Calls waiting for a decision, by call id. @type {Map<string, ApprovalRequest>} */
  approvals = new Map();
  /** The task's objective, agent and model, from `task_created`. */
  /** @type {{ objective: string, agent?: string, model?: string, parentTaskId?: string } | undefined} */
  task = undefined;
  /** Input ids whose message has another key (the objective's input is the objective). @type {Map<string, string>} */
  #inputKeys = new Map();
  /** @type {ConversationChange} */
  #change = { items: [], result: false, approvals: false };

  /** Fold one stored event (in `seq` order), noting in `change` what it touched. @param {StoredEvent} event @param {ConversationChange} change */
  add(event, change) {
    this.#change = change;
    this.#fold(event);
  }

  #inputKey(/** @type {string} */ inputId) {
    return this.#inputKeys.get(inputId) ?? `input:${inputId}`;
  }

  /** @template {Item} T @param {T} item */
  #put(item) {
    if (!this.items.has(item.key)) this.order.push(item.key);
    this.items.set(item.key, item);
    this.#touch(item.key);
    return item;
  }

  #touch(/** @type {string} */ key) {
    if (!this.#change.items.includes(key)) this.#change.items.push(key);
  }

  /** @param {string} callId @param {string} name @param {StoredEvent} event */
  #tool(callId, name, event) {
    const key = `call:${callId}`;
    const found = this.items.get(key);
    if (found?.kind === "tool") {
      this.#touch(key);
      return found;
    }
    return this.#put(
      /** @type {ToolItem} */ ({
        kind: "tool",
        key,
        seq: event.seq,
        at: event.at,
        callId,
        name,
        input: undefined,
        state: "asked",
        untrusted: false,
        attempt: 0,
      }),
    );
  }

  #note(/** @type {StoredEvent} */ event, /** @type {string} */ text) {
    this.#put({ kind: "note", key: `note:${event.seq}`, seq: event.seq, at: event.at, type: event.type, text });
  }

  #fold(/** @type {StoredEvent} */ event) {
    switch (event.type) {
      case "task_created": {
        this.task = { objective: event.objective };
        if (event.agent !== undefined) this.task.agent = event.agent;
        if (event.model !== undefined) this.task.model = event.model;
        if (event.parentTaskId !== undefined) this.task.parentTaskId = event.parentTaskId;
        /** @type {MessageItem} */
        const message = {
          kind: "message",
          key: "objective",
          seq: event.seq,
          at: event.at,
          lane: "user",
          carrier: "objective",
          delivery: "applied",
          text: event.objective,
          attachments: [],
        };
        if (event.actor !== undefined) message.actor = event.actor;
        this.#put(message);
        break;
      }
      case "human_input": {
        // The objective's own input (written with task_created) is the objective's message.
        const objective = this.items.get("objective");
        if (event.carrier === "objective" && objective?.kind === "message" && !this.#inputKeys.has(event.inputId)) {
          this.#inputKeys.set(event.inputId, "objective");
          if (event.attachments !== undefined) objective.attachments = event.attachments;
          if (event.actor !== undefined) objective.actor = event.actor;
          this.#touch("objective");
          break;
        }
        const key = this.#inputKey(event.inputId);
        const found = this.items.get(key);
        if (found?.kind === "message") {
          if (key !== "objective") found.delivery = event.delivery;
          this.#touch(key);
          break;
        }
        /** @type {MessageItem} */
        const message = {
          kind: "message",
          key,
          seq: event.seq,
          at: event.at,
          lane: event.source,
          carrier: event.carrier,
          delivery: event.delivery,
          text: event.text ?? "",
          attachments: event.attachments ?? [],
        };
        if (event.actor !== undefined) message.actor = event.actor;
        this.#put(message);
        break;
      }
      case "user_message": {
        // The exact bytes the model got: on each input they framed, else on the objective.
        const keys = event.inputIds.length > 0 ? event.inputIds.map((id) => this.#inputKey(id)) : ["objective"];
        for (const key of keys) {
          const message = this.items.get(key);
          if (message?.kind !== "message" || message.framed !== undefined) continue;
          message.framed = event.content;
          this.#touch(key);
        }
        break;
      }
      case "model_turn": {
        this.#put(
          /** @type {AssistantItem} */ ({
            kind: "assistant",
            key: `turn:${event.seq}`,
            seq: event.seq,
            at: event.at,
            legId: event.legId,
            turn: event.sessionSeq,
            text: event.text,
            ...(event.reasoning === undefined ? {} : { reasoning: event.reasoning }),
            ...(event.model === undefined ? {} : { model: event.model }),
            pricedModel: "",
            usage: event.usage,
            finishReason: event.finishReason,
            callIds: event.toolCalls.map((call) => call.callId),
          }),
        );
        for (const call of event.toolCalls) {
          const tool = this.#tool(call.callId, call.name, event);
          tool.input = call.input;
        }
        break;
      }
      case "tool_call_started": {
        const tool = this.#tool(event.callId, event.name, event);
        tool.state = "running";
        tool.attempt = event.attempt;
        if (event.input !== undefined) tool.input = event.input;
        break;
      }
      case "tool_result": {
        const tool = this.#tool(event.callId, event.name, event);
        tool.state = event.status;
        tool.output = event.content;
        tool.untrusted = FENCE.test(event.content);
        if (event.output !== undefined) tool.value = event.output;
        if (event.durationMs !== undefined) tool.durationMs = event.durationMs;
        break;
      }
      case "approval_requested": {
        const tool = this.#tool(event.callId, event.name, event);
        tool.state = "waiting";
        tool.approval = event;
        if (tool.input === undefined) tool.input = parseJson(event.inputJson);
        this.approvals.set(event.callId, event);
        this.#change.approvals = true;
        break;
      }
      case "approval_decided": {
        const key = `call:${event.callId}`;
        const tool = this.items.get(key);
        if (tool?.kind === "tool") {
          tool.decision = event;
          if (tool.state === "waiting") tool.state = event.decision === "approve" ? "running" : "denied";
          this.#touch(key);
        }
        if (this.approvals.delete(event.callId)) this.#change.approvals = true;
        break;
      }
      case "task_completed": {
        const value = structured(event.result);
        this.result =
          value === undefined
            ? { status: "completed", text: event.result }
            : { status: "completed", text: event.result, value };
        this.#change.result = true;
        break;
      }
      case "task_failed":
        this.result = { status: "failed", code: event.error.code, message: event.error.message };
        this.#change.result = true;
        break;
      case "task_cancelled":
        this.result =
          event.reason === undefined ? { status: "cancelled" } : { status: "cancelled", reason: event.reason };
        this.#change.result = true;
        break;
      case "child_task":
        this.#note(
          event,
          `Child task ${event.childTaskId} ${event.phase === "spawned" ? "started" : `ended${event.status ? `: ${event.status}` : ""}`}`,
        );
        break;
      case "task_forked":
        this.#note(
          event,
          `${event.origin === "import" ? "Imported from" : "Forked from"} task ${event.source.taskId} at event ${event.source.seq}`,
        );
        break;
      case "engine_note":
        this.#note(event, `${event.kind}: ${event.text}`);
        break;
      case "hook_feedback":
        this.#note(event, `Hook ${event.hook}: ${event.content}`);
        break;
      case "wake_scheduled":
        this.#note(event, `Wake scheduled for ${event.due}`);
        break;
      case "compaction":
        this.#note(event, `Compacted through event ${event.throughSeq}`);
        break;
      default:
        break;
    }
  }
}

/** JSON text as a value, or the text itself when it is not JSON. */
export function parseJson(/** @type {string} */ text) {
  try {
    return /** @type {unknown} */ (JSON.parse(text));
  } catch {
    return text;
  }
}
