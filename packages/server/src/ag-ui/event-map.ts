/**
 * The log as AG-UI events. Stored events are the truth: a `model_turn` becomes its reasoning, its
 * text message and its tool calls; a `tool_result` a `TOOL_CALL_RESULT`. Live text deltas (from
 * this process's workers) open the turn's text message early and stream into it; the stored turn
 * then closes it with whatever the deltas had not shown, so nothing is sent twice. Sema's own
 * facts (a steer applied, a decision, a note) are `CUSTOM` events named `sema.*`.
 */
import { type BaseEvent, EventType } from "@ag-ui/core";
import { type StoredEvent, speakerLabel } from "@sema-agent/core";
import type { EphemeralEvent } from "@sema-agent/core/protocol";

/** An AG-UI event as sent: the protocol's type and its fields. */
export type AgUiEvent = BaseEvent;

/** The id of the assistant message of a model turn (its `sessionSeq` is unique in the task). */
export function turnMessageId(sessionSeq: number): string {
  return `sema-turn-${sessionSeq}`;
}

function custom(name: string, value: unknown): AgUiEvent {
  return { type: EventType.CUSTOM, name: `sema.${name}`, value };
}

/** Maps one run's stored events and live deltas to AG-UI events, in order. */
export class AgUiEventMap {
  /** The turn's message the deltas have opened, and the text they streamed into it. */
  #open: { messageId: string; shown: string } | undefined;
  /** The next model turn's session seq (for the id of the message its deltas open). */
  #nextTurn: number;
  /** Results not to echo: the client sent them itself, in this run. */
  readonly #fromClient: ReadonlySet<string>;

  constructor(sessionSeq: number, fromClient: ReadonlySet<string> = new Set()) {
    this.#nextTurn = sessionSeq + 1;
    this.#fromClient = fromClient;
  }

  /** Whether a turn's text message is open (deltas streamed, the stored turn not seen yet). */
  get open(): boolean {
    return this.#open !== undefined;
  }

  /** A live delta: text opens (or continues) the turn's message; the rest waits for the stored turn. */
  delta(event: EphemeralEvent): AgUiEvent[] {
    if (event.type !== "text_delta" || event.delta === "") return [];
    const out: AgUiEvent[] = [];
    if (this.#open === undefined) {
      const messageId = turnMessageId(this.#nextTurn);
      this.#open = { messageId, shown: "" };
      out.push({ type: EventType.STEP_STARTED, stepName: messageId });
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" });
    }
    this.#open.shown += event.delta;
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.#open.messageId, delta: event.delta });
    return out;
  }

  /** A stored event's AG-UI events. */
  stored(event: StoredEvent): AgUiEvent[] {
    switch (event.type) {
      case "model_turn":
        return this.#turn(event);
      case "tool_result":
        if (this.#fromClient.has(event.callId)) return [];
        return [
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: `sema-result-${event.callId}`,
            toolCallId: event.callId,
            role: "tool",
            // What the tool returned for a client to show; the fenced text is the model's copy.
            content:
              event.output === undefined
                ? event.content
                : typeof event.output === "string"
                  ? event.output
                  : JSON.stringify(event.output),
          },
        ];
      case "human_input":
        if (event.carrier !== "steer" || event.delivery !== "applied") return [];
        return [custom("steer_applied", { inputId: event.inputId, entryId: event.entryId ?? null })];
      case "approval_requested":
        return [custom("approval_requested", { callId: event.callId, name: event.name, digest: event.digest })];
      case "approval_decided":
        return [
          custom("approval_decided", {
            callId: event.callId,
            decision: event.decision,
            by: speakerLabel(event.actor),
          }),
        ];
      case "engine_note":
        return [custom("note", { kind: event.kind, text: event.text })];
      case "interrupt_requested":
        return [custom("interrupt_requested", {})];
      case "leg_ended":
        return [custom("leg_ended", { legId: event.legId, reason: event.reason })];
      default:
        return [];
    }
  }

  #turn(event: Extract<StoredEvent, { type: "model_turn" }>): AgUiEvent[] {
    const messageId = turnMessageId(event.sessionSeq);
    this.#nextTurn = event.sessionSeq + 1;
    const out: AgUiEvent[] = [];
    const open = this.#open?.messageId === messageId ? this.#open : undefined;
    if (this.#open !== undefined && open === undefined) {
      // Deltas of a turn that was never recorded (a retried model call): close what they opened.
      out.push({ type: EventType.TEXT_MESSAGE_END, messageId: this.#open.messageId });
      out.push({ type: EventType.STEP_FINISHED, stepName: this.#open.messageId });
    }
    this.#open = undefined;
    if (open === undefined) out.push({ type: EventType.STEP_STARTED, stepName: messageId });
    if (event.reasoning !== undefined && event.reasoning !== "") {
      const reasoningId = `${messageId}-reasoning`;
      out.push(
        { type: EventType.REASONING_START, messageId: reasoningId },
        { type: EventType.REASONING_MESSAGE_START, messageId: reasoningId, role: "reasoning" },
        { type: EventType.REASONING_MESSAGE_CONTENT, messageId: reasoningId, delta: event.reasoning },
        { type: EventType.REASONING_MESSAGE_END, messageId: reasoningId },
        { type: EventType.REASONING_END, messageId: reasoningId },
      );
    }
    if (open !== undefined) {
      // The stored text is the truth; the deltas showed its beginning.
      const rest = event.text.startsWith(open.shown) ? event.text.slice(open.shown.length) : "";
      if (rest !== "") out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: rest });
      out.push({ type: EventType.TEXT_MESSAGE_END, messageId });
    } else if (event.text !== "") {
      out.push(
        { type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" },
        { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: event.text },
        { type: EventType.TEXT_MESSAGE_END, messageId },
      );
    }
    for (const call of event.toolCalls) {
      out.push(
        {
          type: EventType.TOOL_CALL_START,
          toolCallId: call.callId,
          toolCallName: call.name,
          parentMessageId: messageId,
        },
        { type: EventType.TOOL_CALL_ARGS, toolCallId: call.callId, delta: JSON.stringify(call.input) },
        { type: EventType.TOOL_CALL_END, toolCallId: call.callId },
      );
    }
    out.push({ type: EventType.STEP_FINISHED, stepName: messageId });
    return out;
  }

  /** Close a message the deltas opened and no stored turn closed (the run ends without it). */
  close(): AgUiEvent[] {
    const open = this.#open;
    if (open === undefined) return [];
    this.#open = undefined;
    return [
      { type: EventType.TEXT_MESSAGE_END, messageId: open.messageId },
      { type: EventType.STEP_FINISHED, stepName: open.messageId },
    ];
  }
}
