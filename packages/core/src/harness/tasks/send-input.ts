/**
 * `sendInput`: record a human input for a task — applied by the running leg at its next step
 * boundary, or parked for the next leg. One conditional append, retried when another writer got
 * in first; an input id makes a retried send idempotent.
 */
import { buildHumanInputEvent } from "../../core/human-input-projection.ts";
import { isTerminal } from "../../core/task-summary.ts";
import { newId } from "../../internal/ids.ts";
import type { Store, TaskRecord } from "../../ports/store.ts";
import type { ContentPart } from "../../protocol/content.ts";
import { InputRejectedError, InvalidInputError, isSemaError, TaskFinishedError } from "../../protocol/errors.ts";
import type { HumanInputDelivery, HumanInputPolicy, HumanInputSource } from "../../protocol/human-input.ts";
import type { TraceContext } from "../../protocol/trace-context.ts";
import type { ActorAssertion } from "../../protocol/transcript.ts";
import { type ContentOptions, ingestContent } from "./content-ingress.ts";

/**
 * A human input to a task: its text or content parts, which lane and carrier it takes, who sent it,
 * what happens if a leg is running, and an idempotency key.
 */
export interface SendInputOptions {
  /**
   * The input: text, recorded as `sanitizeHumanText` leaves it for its lane, or content parts
   * (text, images, files) — their bytes go to the store's blob table, their text parts are joined
   * and sanitized the same way (design §5 "Images and files").
   */
  text: string | readonly ContentPart[];
  /** Limits on the input's image and file parts, and whether URL parts are fetched. */
  content?: ContentOptions;
  /** `steer` (default), `nextTurn` or `wake`; a host may name its own. */
  carrier?: string;
  /** The lane; default `user`. */
  source?: HumanInputSource;
  actor?: ActorAssertion;
  /** What to do if a leg is running: `steer` (default), `queue`, `interrupt`, `reject`. */
  policy?: HumanInputPolicy;
  /** The leg it was meant for: if that leg has ended, the input is parked, not applied to another. */
  legId?: string;
  /**
   * An idempotency key: a sender that retries (a timed-out HTTP request, a crashed relay) passes
   * the same id, and an input already recorded under it is not recorded again.
   */
  inputId?: string;
  /**
   * The W3C trace context of the request that sent the input (`parseTraceContext`), recorded on
   * its `human_input` so a trace links the task to the caller's.
   */
  traceContext?: TraceContext;
}

/**
 * What `sendInput` recorded: the input's id and its first delivery stage — `received` by a running
 * leg, `parked` for the next one, or `dropped` when the policy `reject` met a running leg.
 */
export interface SentInput {
  inputId: string;
  delivery: HumanInputDelivery;
}

/**
 * Whether a leg is open on the task. A leg whose host died still counts: the leg that recovers it
 * delivers what was sent meanwhile as live steers, so nothing waits for a later resume.
 */
export function isRunning(record: TaskRecord): boolean {
  return record.summary.status === "running" && record.summary.legId !== undefined;
}

/**
 * Record a human input. While a leg runs it is `received` (the leg applies it at its next step
 * boundary, or as its policy says); otherwise it is `parked` for the next leg.
 */
export async function sendInput(store: Store, taskId: string, options: SendInputOptions): Promise<SentInput> {
  if (typeof options.text !== "string" && !Array.isArray(options.text))
    throw new InvalidInputError("input text must be a string or an array of content parts");
  const source = options.source ?? "user";
  // Content is taken (and its bytes stored) once, before the append loop: a retried append
  // records the same references.
  const { text, attachments } = await ingestContent(store, options.text, source, options.content);
  const carrier = options.carrier ?? "steer";
  const inputId = options.inputId ?? newId();
  for (;;) {
    const record = await store.getTask(taskId);
    if (options.inputId !== undefined) {
      const earlier = await findInput(store, taskId, inputId);
      if (earlier !== undefined) return earlier;
    }
    const { status } = record.summary;
    if (status === "cancelled" || (isTerminal(status) && carrier !== "wake"))
      throw new TaskFinishedError(taskId, status);
    const running = isRunning(record);
    const forOtherLeg = options.legId !== undefined && options.legId !== record.summary.legId;
    const base = {
      inputId,
      carrier,
      source,
      sessionSeq: record.summary.sessionSeq,
      principal: record.principal,
      ...(options.actor === undefined
        ? {}
        : { actor: options.actor, ...(options.actor.issuer === undefined ? {} : { issuer: options.actor.issuer }) }),
      ...(options.policy === undefined ? {} : { policy: options.policy }),
      ...(options.legId === undefined ? {} : { legId: options.legId }),
      ...(options.traceContext === undefined ? {} : { traceContext: options.traceContext }),
    };
    const rejected = running && options.policy === "reject";
    const delivery: HumanInputDelivery = rejected ? "dropped" : running && !forOtherLeg ? "received" : "parked";
    const event = buildHumanInputEvent(
      rejected
        ? { ...base, delivery, reason: "rejected: a leg is running and the policy is reject" }
        : { ...base, delivery, text, ...(attachments === undefined ? {} : { attachments }) },
    );
    try {
      await store.append(taskId, [event], { expectedSeq: record.lastSeq });
    } catch (error) {
      if (isSemaError(error, "SeqConflict")) continue;
      throw error;
    }
    if (rejected) throw new InputRejectedError(taskId, inputId);
    return { inputId, delivery };
  }
}

/** The first recorded stage of an input, if it exists: its delivery as the sender was told. */
async function findInput(store: Store, taskId: string, inputId: string): Promise<SentInput | undefined> {
  const event = await store.findInput(taskId, inputId);
  return event?.type === "human_input" ? { inputId, delivery: event.delivery } : undefined;
}
