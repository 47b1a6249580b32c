/**
 * THE single projection point for human-input speaker envelopes (design §5).
 *
 * One renderer covers every human-input carrier: the core-side five (objective, live steer,
 * nextTurn, the resume tail's parked frames, the wake message) and a serving layer's own carriers
 * through the same contract. The ingress sanitizes text and mints the {@link ActorAssertion};
 * `projectHumanInput` only projects: it renders the speaker label ahead of the text and never
 * sanitizes, truncates or rewrites the text itself.
 *
 * Envelope contract:
 *  - no `actor` ⇒ byte-identical passthrough (single-user hosts' bytes are pinned unchanged);
 *  - `source: "system"` ⇒ passthrough whatever the actor: machine text is never human speech;
 *  - otherwise ⇒ `[from "<id>"]`, plus ` (unverified)` unless the ingress verified the identity,
 *    on its own line ahead of the text. The label is attribution, never authority.
 *
 * The id goes through `inlineUntrusted` then `attrEscape`, so it can never close the label, escape
 * an enclosing `<system-reminder>` or fence, or forge a label without `(unverified)`. Projection
 * runs before trust framing at every call site, so the label sits inside the frame it attributes.
 *
 * The module also owns the delivery frame for a mid-turn caller steer ({@link frameMidTurnUserInput}),
 * a separate concern that runs after projection.
 */

import { newId } from "../internal/ids.ts";
import type { HumanInputEvent, HumanInputSource, TaskEventIdentity } from "../protocol/human-input.ts";
import type { ActorAssertion } from "../protocol/transcript.ts";
import { attrEscape, inlineUntrusted } from "./neutralizers.ts";

export type { HumanInputDelivery, HumanInputEvent, HumanInputSource } from "../protocol/human-input.ts";

/** Longest speaker id kept in a label, in code points. */
export const LABEL_ID_MAX_CHARS = 64;

/** One human-input frame as the projection point receives it: ingress-sanitized text and the
 *  ingress-minted assertion (absent = anonymous). */
export interface HumanInputFrame {
  /** The input text, already sanitized by the ingress that accepted it. Returned untouched. */
  text: string;
  /** Who spoke; absent means the caller supplied no attribution. */
  actor?: ActorAssertion;
  source: HumanInputSource;
}

/** The static head of the mid-turn frame (exported for tests that compare whole frames). */
export const MID_TURN_FRAME_HEAD =
  "[The user sent the message below while you were working. It arrived between your steps; take it into account from here on.]\n";

/**
 * Wrap one live caller steer (the untrusted `user` lane) in the mid-turn delivery frame. Static
 * text, no interpolation; a blank projection (`projected.trim() === ""`) is returned verbatim so a
 * frame never materializes from nothing.
 */
export function frameMidTurnUserInput(projected: string): string {
  if (projected.trim() === "") return projected;
  return MID_TURN_FRAME_HEAD + projected;
}

/** The speaker label for an actor: `[from "ID"]`, plus ` (unverified)` unless verified. */
export function speakerLabel(actor: ActorAssertion): string {
  const id = attrEscape(inlineUntrusted(actor.id, LABEL_ID_MAX_CHARS));
  return actor.verified === true ? `[from "${id}"]` : `[from "${id}"] (unverified)`;
}

/**
 * Render the speaker envelope for one human-input frame. Pure; see the module contract above.
 * Call before any trust framing (`formatHookFeedback` / `delimitUntrusted`).
 */
export function projectHumanInput(frame: HumanInputFrame): string {
  if (frame.actor === undefined || frame.source === "system") return frame.text;
  return `${speakerLabel(frame.actor)}\n${frame.text}`;
}

/** A copy of the assertion with no `undefined`-valued key (JS callers can pass one). */
function copyActor(actor: ActorAssertion): ActorAssertion {
  const copy: ActorAssertion = { id: actor.id, verified: actor.verified };
  if (actor.issuer !== undefined) copy.issuer = actor.issuer;
  return copy;
}

type HumanInputFields = Omit<HumanInputEvent, "type" | "inputId" | keyof TaskEventIdentity>;

/** The optional keys, in the order they are written (a fixed order keeps stored bytes stable). */
const OPTIONAL_KEYS = [
  "text",
  "actor",
  "issuer",
  "principal",
  "entryId",
  "legId",
  "policy",
  "reason",
  "attachments",
  "traceContext",
] as const;

/**
 * The one constructor for the `human_input` TaskEvent arm: mints the `inputId` when the caller has
 * none and materializes no absent optional key (absence is the semantic). Never sets the identity
 * keys (`taskId`, `seq`, `at`); the store stamps those.
 */
export function buildHumanInputEvent(
  input: Omit<HumanInputEvent, "type" | "inputId" | keyof TaskEventIdentity> & { inputId?: string },
): HumanInputEvent {
  const event: HumanInputEvent = {
    type: "human_input",
    // Version 2 marks an input with attachments, which a reader of version 1 would drop.
    v: input.attachments === undefined || input.attachments.length === 0 ? 1 : 2,
    inputId: input.inputId ?? newId(),
    carrier: input.carrier,
    source: input.source,
    delivery: input.delivery,
    sessionSeq: input.sessionSeq,
  };
  const target = event as unknown as Record<string, unknown>;
  for (const key of OPTIONAL_KEYS) {
    const value = input[key];
    if (value === undefined) continue;
    if (key === "actor") target[key] = copyActor(value as ActorAssertion);
    else if (key === "attachments") {
      const refs = value as readonly object[];
      if (refs.length > 0) target[key] = refs.map((ref) => ({ ...ref }));
    } else if (key === "traceContext") target[key] = { ...(value as object) };
    else target[key] = value;
  }
  return event;
}

/**
 * The one constructor of the `"applied"` frame for an input that entered a model turn on a core
 * carrier. The resume replay and the live lane both mint here, so both say the same thing with the
 * same attribution: `issuer` mirrored from `actor.issuer`, `principal` when the leg has one, no
 * `entryId` (the frame precedes the commit).
 */
export function buildAppliedHumanInputEvent(input: {
  carrier: string;
  source: HumanInputSource;
  sessionSeq: number;
  inputId: string;
  actor?: ActorAssertion | undefined;
  principal?: string | undefined;
}): HumanInputEvent {
  const fields: HumanInputFields & { inputId: string } = {
    inputId: input.inputId,
    carrier: input.carrier,
    source: input.source,
    delivery: "applied",
    sessionSeq: input.sessionSeq,
  };
  if (input.actor !== undefined) {
    fields.actor = input.actor;
    if (input.actor.issuer !== undefined) fields.issuer = input.actor.issuer;
  }
  if (input.principal !== undefined) fields.principal = input.principal;
  return buildHumanInputEvent(fields);
}
