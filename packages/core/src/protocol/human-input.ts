import type { Attachment } from "./content.ts";
import type { TraceContext } from "./trace-context.ts";
import type { ActorAssertion } from "./transcript.ts";

/**
 * The lane a human-input frame rides, which decides how much authority it carries and how it is
 * framed for the model:
 * - `user`: the caller typing to the task; untrusted.
 * - `supervisor`: a trusted party with authority over the run; rendered in a `<system-reminder>`.
 * - `operator`: a delegating parent agent steering its child; its own operator frame.
 * - `external`: third-party text relayed in (webhook, email, chat); fenced by `delimitUntrusted`.
 * - `system`: machine text (wake buses, engine notes); never rendered as human speech.
 */
export type HumanInputSource = "user" | "operator" | "supervisor" | "external" | "system";

/**
 * One stage of one input's life, all stages sharing its `inputId`:
 * `received` (the ingress accepted it), `parked` (it arrived while no leg ran), `applied` (it
 * entered a model turn), `dropped` (withdrawn, expired or refused; `reason` says which).
 */
export type HumanInputDelivery = "received" | "parked" | "applied" | "dropped";

/**
 * The core-side carriers. `carrier` is an open string so a host can add its own through the same
 * contract; these are the ones the harness itself delivers.
 */
export type CoreCarrier = "objective" | "steer" | "nextTurn" | "resume" | "wake";

/**
 * What an input does when it arrives while a leg runs: `steer` (default: next step boundary),
 * `queue` (as nextTurn), `interrupt` (abort the model call and tools, then apply), `reject`.
 */
export type HumanInputPolicy = "steer" | "queue" | "interrupt" | "reject";

/**
 * The keys a store stamps on append. Constructors never set them; a stored event always has them.
 */
export interface TaskEventIdentity {
  taskId?: string;
  seq?: number;
  /** ISO-8601 time of the append, by the store's clock. */
  at?: string;
}

/**
 * The `human_input` arm of the session log: one delivery stage of one input.
 *
 * Three-valued attribution, and absence is the semantic: no `actor` means the host supplied no
 * attribution (the model sees the text byte-identical); an actor with `verified: false` is a
 * self-declared identity; `verified: true` came from credentials. No constructor ever writes a key
 * whose value is `undefined`.
 */
export interface HumanInputEvent extends TaskEventIdentity {
  type: "human_input";
  /**
   * Schema version of this arm. Optional in the type only because the seed's constructor
   * signatures predate it; every constructor writes it and the store rejects an event without it.
   */
  v?: 1 | 2;
  /** Shared by every delivery stage of one input. */
  inputId: string;
  /** The route into the model's context: a {@link CoreCarrier} or a host's own. */
  carrier: string;
  source: HumanInputSource;
  delivery: HumanInputDelivery;
  /** The session's model-turn count when the frame was minted. */
  sessionSeq: number;
  /** The ingress-sanitized text; on `received` / `parked`. */
  text?: string;
  actor?: ActorAssertion;
  /** Mirrors `actor.issuer`. */
  issuer?: string;
  /** The principal the leg runs for, when it has one. */
  principal?: string;
  /** The stored entry that committed the input to the transcript (never on `applied`). */
  entryId?: string;
  /** The leg the input was meant for or applied in. */
  legId?: string;
  policy?: HumanInputPolicy;
  /** Why an input was `dropped`. */
  reason?: string;
  /**
   * The input's images and files as stored references (never empty; version 2 only): `text` is
   * the concatenation of its text parts, so a reader of text sees what it always saw.
   */
  attachments?: Attachment[];
  /** The W3C trace context of the request that sent the input, when it carried one (never on `applied`). */
  traceContext?: TraceContext;
}
