// @ts-check
// The timeline's part of the fold (fold.js): the legs of a task's log, each with its model turns,
// tool calls and waits for approval, as spans with a start and an end. These are the `sema.leg`,
// `chat` and `execute_tool` spans @sema-agent/otel's span fold makes of the same log
// (fold-spans.test.ts holds them equal). Pure: no DOM, no clock (every time is an event's `at`).

/** @typedef {import("@sema-agent/core/protocol").StoredEvent} StoredEvent */

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

export class TimelineFold {
  /** @type {Leg[]} */
  legs = [];
  /** @type {Leg | undefined} */
  #leg = undefined;
  /** @type {string | undefined} */
  #lastAt = undefined;
  /** Tool calls still open, by call id, with their leg (none: started outside a leg, not drawn). @type {Map<string, { item: TimelineItem, leg: Leg | undefined }>} */
  #calls = new Map();
  /** @type {Map<string, TimelineItem>} */
  #waits = new Map();
  /** The task ended while a leg ran: its calls end with that leg. */
  #ending = false;
  /** The task's first end is folded (a wake after it and a second end change no call). */
  #ended = false;
  /** The keys of the legs the current `add` touched. @type {string[]} */
  #changed = [];

  /**
   * Fold one stored event (in `seq` order), adding the keys of the legs it touched to `changed`.
   * @param {StoredEvent} event @param {string[]} changed
   */
  add(event, changed) {
    this.#changed = changed;
    this.#fold(event);
    this.#lastAt = event.at;
  }

  #touch(/** @type {Leg} */ leg) {
    if (!this.#changed.includes(leg.key)) this.#changed.push(leg.key);
  }

  #fold(/** @type {StoredEvent} */ event) {
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
        this.#changed.push(started.key);
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
        this.#changed.push(leg.key);
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
        this.#changed.push(leg.key);
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
          this.#changed.push(leg.key);
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
        this.#changed.push(leg.key);
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
        if (owner !== undefined) this.#changed.push(owner.key);
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
    if (open.leg !== undefined) this.#touch(open.leg);
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
    this.#touch(leg);
  }
}

/** `at`, or `start` when a clock that went back put `at` before it (ISO times compare as strings). */
function notBefore(/** @type {string} */ at, /** @type {string} */ start) {
  if (at < start) return start;
  return at;
}
