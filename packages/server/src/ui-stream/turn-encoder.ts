/**
 * One assistant message of a chat as UI stream parts, from the task's log: stored events as they
 * come (from the start of the turn, or the middle of it), and live deltas once level with the log.
 * Used for the live stream and, over the whole log, for the transcript, so a reloaded page shows
 * what was streamed.
 *
 * Text comes from deltas only for a step whose deltas it has from the start (the hub's record of
 * the step under way when the stream went live, then each delta tagged with its step); otherwise
 * (a replay, deltas from a worker in another process, a step too large to keep) from the step's
 * `model_turn`: whole, or what the deltas did not send yet. A delta that comes before the tail
 * delivered its step's first event waits for it. Nothing is sent twice, nothing streamed is
 * contradicted.
 */
import type { StoredEvent } from "@sema-agent/core";
import type { EphemeralEvent } from "@sema-agent/core/protocol";
import type { StepDeltas } from "../events/event-hub.ts";
import { isStepBoundary } from "../events/step-boundary.ts";
import { opensTurn } from "./chat-turns.ts";
import type { UiChunk } from "./ui-chunk.ts";

/** Parks a host resolves on its own (a restart, a model outage): the turn goes on. */
const TRANSIENT_PARKS: ReadonlySet<string> = new Set(["parked:shutdown", "parked:crash", "parked:model"]);

export interface TurnEncoderOptions {
  /** The assistant message's id (`start`). */
  messageId: string;
  /**
   * Events up to this seq are a replay of the turn so far: a park among them was followed by more
   * (an approval, a resume), so it does not end the stream. Infinity: never end (a transcript).
   */
  endsAfter: number;
  /** A steer whose own request streams the turn from here on: this stream ends before it. */
  handedOver?: (inputId: string) => boolean;
}

export class TurnEncoder {
  readonly #options: TurnEncoderOptions;
  #done = false;
  #stepOpen = false;
  /** Seq of the last step boundary: names the step's text and reasoning parts. */
  #stepBase = 0;
  /** Level with the log, taking deltas. */
  #live = false;
  /** This step's deltas are had from its start: they stream (else the step comes from its record). */
  #trustDeltas = false;
  /** Deltas of a later step, come before the tail delivered the event it began after. */
  #pending: { afterSeq: number; deltas: EphemeralEvent[] } | undefined;
  #text: { id: string; sent: string } | undefined;
  #reasoning: { id: string; sent: string } | undefined;
  readonly #toolInputs = new Set<string>();
  /** Calls this turn asked approval for: their denial is the approval's (a hook's is an error). */
  readonly #approvals = new Set<string>();
  /** Steers seen and not yet applied, by input id. */
  readonly #steers = new Map<string, { text: string; from?: string; source?: string }>();

  constructor(options: TurnEncoderOptions) {
    this.#options = options;
  }

  /** The turn ended (or a new one began): nothing more belongs to this message. */
  get done(): boolean {
    return this.#done;
  }

  opening(): UiChunk[] {
    return [{ type: "start", messageId: this.#options.messageId }];
  }

  /**
   * Level with the log. `step`: the deltas of the step under way so far, if the hub saw it begin:
   * this step's stream from its start, or a later one's to hold until its first event is read.
   */
  live(step: StepDeltas | undefined): UiChunk[] {
    this.#live = true;
    this.#trustDeltas = false;
    this.#pending = undefined;
    if (step === undefined || step.afterSeq < this.#stepBase) return [];
    if (step.afterSeq > this.#stepBase) {
      this.#pending = { afterSeq: step.afterSeq, deltas: [...step.deltas] };
      return [];
    }
    this.#trustDeltas = true;
    return step.deltas.flatMap((delta) => this.#delta(delta));
  }

  stored(event: StoredEvent): UiChunk[] {
    if (this.#done) return [];
    const handedOver =
      event.type === "human_input" &&
      event.delivery === "received" &&
      event.seq > this.#options.endsAfter &&
      this.#options.handedOver?.(event.inputId) === true;
    if (opensTurn(event) || handedOver) {
      this.#done = true;
      return [...this.#closeStep(), { type: "finish", finishReason: "stop" }];
    }
    const out: UiChunk[] = [];
    switch (event.type) {
      case "model_turn":
        out.push(...this.#modelTurn(event));
        break;
      case "approval_requested":
        this.#approvals.add(event.callId);
        out.push({
          type: "tool-approval-request",
          approvalId: event.callId,
          toolCallId: event.callId,
          signature: event.digest,
        });
        break;
      case "approval_decided":
        this.#approvals.add(event.callId);
        out.push({
          type: "tool-approval-response",
          approvalId: event.callId,
          approved: event.decision === "approve",
          ...(event.reason === undefined ? {} : { reason: event.reason }),
        });
        break;
      case "tool_result":
        out.push(
          event.status === "ok"
            ? { type: "tool-output-available", toolCallId: event.callId, output: event.output ?? event.content }
            : event.status === "denied" && this.#approvals.has(event.callId)
              ? { type: "tool-output-denied", toolCallId: event.callId }
              : { type: "tool-output-error", toolCallId: event.callId, errorText: event.content },
        );
        break;
      case "human_input":
        out.push(...this.#input(event));
        break;
      case "user_message":
        out.push(...this.#applied(event.inputIds));
        break;
      case "leg_ended":
        out.push(...this.#legEnded(event));
        break;
      case "task_failed":
        out.push(...this.#closeStep(), { type: "error", errorText: `${event.error.code}: ${event.error.message}` });
        this.#end(event.seq);
        break;
      case "task_cancelled":
        out.push(...this.#closeStep(), { type: "abort", reason: event.reason ?? "cancelled" });
        this.#end(event.seq);
        break;
      default:
        break;
    }
    if (isStepBoundary(event)) {
      this.#stepBase = event.seq;
      // Live since before this step began: its deltas are all here (or waiting, below).
      this.#trustDeltas = this.#live;
      const pending = this.#pending;
      this.#pending = undefined;
      if (pending?.afterSeq === event.seq) out.push(...pending.deltas.flatMap((delta) => this.#delta(delta)));
    }
    return out;
  }

  /** A live delta, with the seq its step began after (undefined: the hub did not keep the step). */
  ephemeral(event: EphemeralEvent, stepAfterSeq: number | undefined): UiChunk[] {
    if (this.#done || stepAfterSeq === undefined || stepAfterSeq < this.#stepBase) return [];
    if (stepAfterSeq > this.#stepBase) {
      if (this.#pending?.afterSeq !== stepAfterSeq) this.#pending = { afterSeq: stepAfterSeq, deltas: [] };
      this.#pending.deltas.push(event);
      return [];
    }
    return this.#delta(event);
  }

  #delta(event: EphemeralEvent): UiChunk[] {
    if (this.#done || !this.#trustDeltas) return [];
    switch (event.type) {
      case "text_delta": {
        const out = this.#openStep();
        if (this.#text === undefined) {
          this.#text = { id: `${this.#stepBase}-text`, sent: "" };
          out.push({ type: "text-start", id: this.#text.id });
        }
        this.#text.sent += event.delta;
        out.push({ type: "text-delta", id: this.#text.id, delta: event.delta });
        return out;
      }
      case "reasoning_delta": {
        const out = this.#openStep();
        if (this.#reasoning === undefined) {
          this.#reasoning = { id: `${this.#stepBase}-reasoning`, sent: "" };
          out.push({ type: "reasoning-start", id: this.#reasoning.id });
        }
        this.#reasoning.sent += event.delta;
        out.push({ type: "reasoning-delta", id: this.#reasoning.id, delta: event.delta });
        return out;
      }
      case "tool_input_start":
        this.#toolInputs.add(event.callId);
        return [...this.#openStep(), { type: "tool-input-start", toolCallId: event.callId, toolName: event.name }];
      case "tool_input_delta":
        if (!this.#toolInputs.has(event.callId)) return [];
        return [{ type: "tool-input-delta", toolCallId: event.callId, inputTextDelta: event.delta }];
      default:
        return [];
    }
  }

  /** What ends the stream if the encoder has not: the turn's `finish`. */
  closing(): UiChunk[] {
    if (this.#done) return [];
    this.#done = true;
    return [...this.#closeStep(), { type: "finish", finishReason: "stop" }];
  }

  #modelTurn(event: Extract<StoredEvent, { type: "model_turn" }>): UiChunk[] {
    const out = this.#openStep();
    out.push(...settle(this.#reasoning, event.reasoning ?? "", `${this.#stepBase}-reasoning`, "reasoning"));
    out.push(...settle(this.#text, event.text, `${this.#stepBase}-text`, "text"));
    this.#reasoning = undefined;
    this.#text = undefined;
    for (const call of event.toolCalls) {
      this.#toolInputs.delete(call.callId);
      out.push({ type: "tool-input-available", toolCallId: call.callId, toolName: call.name, input: call.input });
    }
    this.#stepOpen = false;
    out.push({ type: "finish-step" });
    return out;
  }

  #input(event: Extract<StoredEvent, { type: "human_input" }>): UiChunk[] {
    if (event.delivery === "applied") return [];
    const from = event.actor?.id;
    const steer = {
      text: event.text ?? "",
      ...(from === undefined ? {} : { from }),
      ...(event.source === "user" ? {} : { source: event.source }),
    };
    if (event.delivery !== "dropped") this.#steers.set(event.inputId, steer);
    const status = event.delivery === "dropped" ? "dropped" : "received";
    return [{ type: "data-sema-steer", id: event.inputId, data: { inputId: event.inputId, status, ...steer } }];
  }

  #applied(inputIds: readonly string[]): UiChunk[] {
    const out: UiChunk[] = [];
    for (const inputId of inputIds) {
      const steer = this.#steers.get(inputId);
      if (steer === undefined) continue;
      this.#steers.delete(inputId);
      out.push(
        { type: "data-sema-steer", id: inputId, data: { inputId, status: "applied", ...steer } },
        { type: "steering-message", id: inputId, parts: [{ type: "text", text: steer.text }] },
      );
    }
    return out;
  }

  #legEnded(event: Extract<StoredEvent, { type: "leg_ended" }>): UiChunk[] {
    const out = this.#closeStep();
    const { reason } = event;
    if (reason.startsWith("parked:")) {
      const parked = reason.slice("parked:".length);
      out.push({
        type: "data-sema-parked",
        id: `parked-${event.legId}`,
        data: { reason: parked, ...(event.detail === undefined ? {} : { detail: event.detail }) },
      });
    }
    if (TRANSIENT_PARKS.has(reason) || event.seq <= this.#options.endsAfter) return out;
    if (reason === "parked:interrupt") out.push({ type: "abort", reason: "interrupted" });
    else if (reason === "completed" || reason.startsWith("parked:"))
      out.push({ type: "finish", finishReason: reason === "parked:approval" ? "tool-calls" : "stop" });
    this.#done = true;
    return out;
  }

  #end(seq: number): void {
    if (seq > this.#options.endsAfter) this.#done = true;
  }

  #openStep(): UiChunk[] {
    if (this.#stepOpen) return [];
    this.#stepOpen = true;
    return [{ type: "start-step" }];
  }

  /** A step cut off (the leg ended mid-stream): close what it opened. */
  #closeStep(): UiChunk[] {
    const out: UiChunk[] = [];
    if (this.#reasoning !== undefined) out.push({ type: "reasoning-end", id: this.#reasoning.id });
    if (this.#text !== undefined) out.push({ type: "text-end", id: this.#text.id });
    this.#reasoning = undefined;
    this.#text = undefined;
    if (this.#stepOpen) out.push({ type: "finish-step" });
    this.#stepOpen = false;
    return out;
  }
}

/**
 * The end of a text (or reasoning) part: what the deltas did not send yet, then its end; the whole
 * text when nothing was streamed. A stream that diverged from the record is ended as it is.
 */
function settle(
  open: { id: string; sent: string } | undefined,
  full: string,
  id: string,
  kind: "text" | "reasoning",
): UiChunk[] {
  const start = kind === "text" ? ("text-start" as const) : ("reasoning-start" as const);
  const delta = kind === "text" ? ("text-delta" as const) : ("reasoning-delta" as const);
  const end = kind === "text" ? ("text-end" as const) : ("reasoning-end" as const);
  if (open === undefined) {
    if (full === "") return [];
    return [
      { type: start, id },
      { type: delta, id, delta: full },
      { type: end, id },
    ];
  }
  const rest = full.startsWith(open.sent) ? full.slice(open.sent.length) : "";
  return [...(rest === "" ? [] : [{ type: delta, id: open.id, delta: rest }]), { type: end, id: open.id }];
}
