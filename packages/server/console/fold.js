// @ts-check
// The one fold of a task's log the console draws from: the conversation (each message once), the
// result, the usage, the open approvals, and the legs, turns and tool waits of the timeline. It is
// incremental: `add(event)` folds one stored event and says which parts it touched, so a view
// updates those and nothing else. Pure: no DOM, no clock (every time is an event's `at`), so Node
// tests fold the same logs the browser does. Its legs, turns and tool spans are the ones
// @sema-agent/otel's span fold makes (fold-spans.test.ts holds them equal).

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
 * @property {number} [costUsd] its tokens at the task's model's price, once the fold has one
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
 * @typedef {object} TimelineItem
 * @property {string} key
 * @property {"turn" | "tool" | "wait"} kind
 * @property {string} label
 * @property {string} start ISO time
 * @property {string} [end] absent while it runs
 * @property {string} [status]
 */

/**
 * @typedef {object} Leg
 * @property {string} key `leg:<legId>:<seq>`, as the span fold keys it
 * @property {string} legId
 * @property {string} trigger
 * @property {string} start
 * @property {string} [end]
 * @property {string} [reason]
 * @property {TimelineItem[]} items
 */

/**
 * The result of a finished task: its text, and the value when the text is structured output (JSON).
 * @typedef {{ status: "completed", text: string, value?: unknown } | { status: "failed", code: string, message: string } | { status: "cancelled", reason?: string }} Result
 */

/**
 * What one `add` touched: the conversation items and legs (by key) that are new or changed.
 * @typedef {object} Change
 * @property {string[]} items
 * @property {string[]} legs
 * @property {boolean} result
 * @property {boolean} usage
 * @property {boolean} approvals
 */

/**
 * A model's price in US dollars per million tokens (the server's quota prices, GET /v1/tasks/{id}'s `price`).
 * @typedef {{ input: number, output: number, cachedInput?: number }} Price
 */

const FENCE = /^\s*<untrusted-[0-9a-f]+/;

/**
 * What `usage` cost at `price`, in US dollars: cached input tokens at the cached price (else the
 * input price), the rest of the input and the output at theirs. The same sum as
 * @sema-agent/core's `costUsd` (fold.test.ts holds them equal), so a turn's cost here adds up to
 * the cost the task list shows.
 * @param {Usage} usage @param {Price} price
 */
export function costOf(usage, price) {
  const cached = usage.cachedInputTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - cached);
  return (
    (fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) / 1_000_000
  );
}

/** Usage plus usage, the optional counts kept only when either side has them. */
export function addUsage(/** @type {Usage} */ a, /** @type {Usage} */ b) {
  /** @type {Usage} */
  const sum = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined)
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined)
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return sum;
}

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

export class TaskFold {
  /** Conversation items by key. @type {Map<string, Item>} */
  items = new Map();
  /** Their keys in the order they appeared. @type {string[]} */
  order = [];
  /** @type {Leg[]} */
  legs = [];
  /** @type {Result | undefined} */
  result = undefined;
  /** @type {Usage} */
  usage = { inputTokens: 0, outputTokens: 0 };
  /** `usage` at the price (see `price`); absent without one. @type {number | undefined} */
  costUsd = undefined;
  /** The price each turn is counted at: the task's model's (as the server counts a task's cost). @type {Price | undefined} */
  #price = undefined;
  /** Calls waiting for a decision, by call id. @type {Map<string, ApprovalRequest>} */
  approvals = new Map();
  /** The task's objective, agent and model, from `task_created`. */
  /** @type {{ objective: string, agent?: string, model?: string, parentTaskId?: string } | undefined} */
  task = undefined;
  lastSeq = 0;
  /** @type {Leg | undefined} */
  #leg = undefined;
  /** @type {string | undefined} */
  #lastAt = undefined;
  /** Tool calls still open, by call id, with their leg (none: started outside a leg, not drawn). @type {Map<string, { item: TimelineItem, leg: Leg | undefined }>} */
  #calls = new Map();
  /** @type {Map<string, TimelineItem>} */
  #waits = new Map();
  /** Input ids whose message has another key (the objective's input is the objective). @type {Map<string, string>} */
  #inputKeys = new Map();
  /** The task ended while a leg ran: its calls end with that leg. */
  #ending = false;
  /** The task's first end is folded (a wake after it and a second end change no call). */
  #ended = false;
  /** @type {Change} */
  #change = { items: [], legs: [], result: false, usage: false, approvals: false };

  /**
   * Count every turn, and the total, at `price` from now on (it arrives with the task's detail,
   * possibly after the log): says which items changed.
   * @param {Price | undefined} price
   * @returns {Change}
   */
  setPrice(price) {
    /** @type {Change} */
    const change = { items: [], legs: [], result: false, usage: true, approvals: false };
    const same =
      price?.input === this.#price?.input &&
      price?.output === this.#price?.output &&
      price?.cachedInput === this.#price?.cachedInput;
    if (same) return { ...change, usage: false };
    this.#price = price === undefined ? undefined : { ...price };
    for (const key of this.order) {
      const item = this.items.get(key);
      if (item?.kind !== "assistant") continue;
      this.#cost(item);
      change.items.push(key);
    }
    this.costUsd = this.#price === undefined ? undefined : costOf(this.usage, this.#price);
    return change;
  }

  /** @param {AssistantItem} item */
  #cost(item) {
    if (this.#price === undefined) delete item.costUsd;
    else item.costUsd = costOf(item.usage, this.#price);
  }

  /** Fold one stored event (in `seq` order; one already folded is ignored) and say what changed. */
  add(/** @type {StoredEvent} */ event) {
    /** @type {Change} */
    const change = { items: [], legs: [], result: false, usage: false, approvals: false };
    if (event.seq <= this.lastSeq) return change;
    this.lastSeq = event.seq;
    this.#change = change;
    this.#conversation(event);
    this.#timeline(event);
    this.#lastAt = event.at;
    return change;
  }

  /** Fold many; the union of what they touched. */
  addAll(/** @type {Iterable<StoredEvent>} */ events) {
    const items = new Set();
    const legs = new Set();
    /** @type {Change} */
    const all = { items: [], legs: [], result: false, usage: false, approvals: false };
    for (const event of events) {
      const change = this.add(event);
      for (const key of change.items) items.add(key);
      for (const key of change.legs) legs.add(key);
      all.result ||= change.result;
      all.usage ||= change.usage;
      all.approvals ||= change.approvals;
    }
    all.items = [...items];
    all.legs = [...legs];
    return all;
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

  #conversation(/** @type {StoredEvent} */ event) {
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
        const turn = this.#put(
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
            usage: event.usage,
            finishReason: event.finishReason,
            callIds: event.toolCalls.map((call) => call.callId),
          }),
        );
        this.#cost(turn);
        for (const call of event.toolCalls) {
          const tool = this.#tool(call.callId, call.name, event);
          tool.input = call.input;
        }
        this.#addUsage(event.usage);
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
        if (event.usage !== undefined && event.phase === "result") this.#addUsage(event.usage);
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

  /** The task's usage plus `usage`, and its cost again. @param {Usage} usage */
  #addUsage(usage) {
    this.usage = addUsage(this.usage, usage);
    if (this.#price !== undefined) this.costUsd = costOf(this.usage, this.#price);
    this.#change.usage = true;
  }

  #timeline(/** @type {StoredEvent} */ event) {
    const leg = this.#leg;
    switch (event.type) {
      case "leg_started": {
        // A leg that never recorded its end (its holder died) ends where the next one starts.
        if (leg !== undefined) this.#endLeg(leg, event.at, "lost");
        /** @type {Leg} */
        const started = {
          key: `leg:${event.legId}:${event.seq}`,
          legId: event.legId,
          trigger: event.trigger,
          start: event.at,
          items: [],
        };
        this.legs.push(started);
        this.#leg = started;
        this.#change.legs.push(started.key);
        break;
      }
      case "leg_ended":
        if (leg !== undefined) this.#endLeg(leg, event.at, event.reason);
        break;
      case "task_forked":
        // A fork (or an import) copied a leg that was still open: the copy ends it there.
        if (leg !== undefined) this.#endLeg(leg, event.at, "forked");
        break;
      case "model_turn":
        if (leg === undefined) break;
        // The turn began when the leg's previous event was written: the log has no "model called" event.
        leg.items.push({
          key: `chat:${event.seq}`,
          kind: "turn",
          label: `Turn ${event.sessionSeq}${event.toolCalls.length ? `: calls ${event.toolCalls.map((c) => c.name).join(", ")}` : ""}`,
          start: this.#lastAt ?? event.at,
          end: event.at,
          status: event.finishReason === "error" ? "error" : "ok",
        });
        this.#change.legs.push(leg.key);
        break;
      case "tool_call_started": {
        const open = this.#calls.get(event.callId);
        // Started again before a result: the earlier run's outcome is unknown.
        if (open !== undefined) this.#endCall(event.callId, event.at, "in_doubt");
        /** @type {TimelineItem} */
        const item = { key: `tool:${event.seq}`, kind: "tool", label: `Tool ${event.name}`, start: event.at };
        // Outside a leg it is the task's, not a leg's: kept (its result ends it), not drawn.
        this.#calls.set(event.callId, { item, leg });
        if (leg === undefined) break;
        leg.items.push(item);
        this.#change.legs.push(leg.key);
        break;
      }
      case "tool_result": {
        const open = this.#calls.get(event.callId);
        if (open !== undefined) {
          this.#endCall(event.callId, event.at, event.status);
          open.item.label += `: ${event.status}`;
        } else if (leg !== undefined) {
          // A call denied before it ran (or answered from outside) has no start of its own.
          leg.items.push({
            key: `tool:${event.seq}`,
            kind: "tool",
            label: `Tool ${event.name}: ${event.status}`,
            start: event.at,
            end: event.at,
            status: event.status,
          });
          this.#change.legs.push(leg.key);
        }
        break;
      }
      case "approval_requested": {
        if (leg === undefined) break;
        /** @type {TimelineItem} */
        const item = {
          key: `wait:${event.seq}`,
          kind: "wait",
          label: `Waiting for approval of ${event.name}`,
          start: event.at,
        };
        leg.items.push(item);
        this.#waits.set(event.callId, item);
        this.#change.legs.push(leg.key);
        break;
      }
      case "approval_decided": {
        const item = this.#waits.get(event.callId);
        if (item === undefined) break;
        this.#waits.delete(event.callId);
        item.end = event.at;
        item.status = event.decision;
        item.label += `: ${event.decision}d by ${event.actor.id}`;
        const owner = this.legs.find((candidate) => candidate.items.includes(item));
        if (owner !== undefined) this.#change.legs.push(owner.key);
        break;
      }
      case "task_completed":
      case "task_failed":
      case "task_cancelled":
        if (this.#ended) break;
        this.#ended = true;
        // Calls still open when the task ends end with it (a cancel while waiting on a child).
        if (leg === undefined) this.#endCalls(event.at);
        else this.#ending = true;
        break;
      default:
        break;
    }
  }

  /** @param {string} callId @param {string} at @param {string} status */
  #endCall(callId, at, status) {
    const open = this.#calls.get(callId);
    if (open === undefined) return;
    this.#calls.delete(callId);
    open.item.end = notBefore(at, open.item.start);
    open.item.status = status;
    if (open.leg !== undefined && !this.#change.legs.includes(open.leg.key)) this.#change.legs.push(open.leg.key);
  }

  #endCalls(/** @type {string} */ at) {
    for (const callId of [...this.#calls.keys()]) this.#endCall(callId, at, "interrupted");
  }

  /** @param {Leg} leg @param {string} at @param {string} reason */
  #endLeg(leg, at, reason) {
    // A call still open when its leg ends: an external tool's stays open; another is over.
    if (reason !== "parked:tool")
      for (const [callId, open] of [...this.#calls])
        if (open.leg === leg)
          this.#endCall(callId, at, reason === "parked:crash" || reason === "lost" ? "in_doubt" : "interrupted");
    leg.end = notBefore(at, leg.start);
    leg.reason = reason;
    this.#leg = undefined;
    if (this.#ending && reason !== "lost") {
      this.#ending = false;
      this.#endCalls(at);
    }
    if (!this.#change.legs.includes(leg.key)) this.#change.legs.push(leg.key);
  }
}

/** `at`, or `start` when a clock that went back put `at` before it (ISO times compare as strings). */
function notBefore(/** @type {string} */ at, /** @type {string} */ start) {
  if (at < start) return start;
  return at;
}

/** JSON text as a value, or the text itself when it is not JSON. */
export function parseJson(/** @type {string} */ text) {
  try {
    return /** @type {unknown} */ (JSON.parse(text));
  } catch {
    return text;
  }
}
