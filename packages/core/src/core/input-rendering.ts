/**
 * How waiting inputs become the exact bytes of one transcript entry: projection first (the
 * speaker label), then the frame of the input's lane, then the carrier's framing. Run once, when
 * the input is applied; the result is recorded, so a replay never renders again.
 */
import type { UserPart } from "../protocol/content.ts";
import type { PendingInput } from "./fold.ts";
import { frameMidTurnUserInput, projectHumanInput } from "./human-input-projection.ts";
import { defuseReservedMarkup } from "./reserved-markup.ts";
import { delimitUntrusted, formatHookFeedback, frameOperatorInput, type RandomBytes } from "./trust-framing.ts";

/** The carriers the harness delivers on, which decide the outer framing. */
export type DeliveryCarrier = "objective" | "steer" | "nextTurn" | "resume" | "wake";

/**
 * One input framed by its lane. `live` marks a caller steer that arrived mid-turn. Reserved
 * markup in the text is defused on every lane but the supervisor's: the ingress already did so
 * for inputs it recorded, and this keeps inputs recorded before it did, or by a host that skipped
 * it, from forging a frame.
 */
function renderInput(input: PendingInput, live: boolean, randomBytes?: RandomBytes): string {
  const text = input.source === "supervisor" ? input.text : defuseReservedMarkup(input.text);
  const frame =
    input.actor === undefined ? { text, source: input.source } : { text, source: input.source, actor: input.actor };
  const projected = projectHumanInput(frame);
  switch (input.source) {
    case "user":
      return live ? frameMidTurnUserInput(projected) : projected;
    case "supervisor":
    case "system":
      return formatHookFeedback(projected);
    case "operator":
      return frameOperatorInput(projected);
    case "external": {
      const options = randomBytes === undefined ? {} : { randomBytes };
      return delimitUntrusted(projected, { ...options, kind: "external", from: input.actor?.id ?? "external" });
    }
  }
}

const RESUME_HEAD = "[These messages arrived while the task was paused.]";

/**
 * The content of the one user entry that applies `inputs` on `carrier`. Several inputs are
 * separated by a blank line; a resume lists what arrived while the task was paused under one head.
 */
export function renderInputs(
  inputs: readonly PendingInput[],
  carrier: DeliveryCarrier,
  randomBytes?: RandomBytes,
): string {
  return renderEntry(inputs, carrier, randomBytes).content;
}

/**
 * The user entry that applies `inputs` on `carrier`: `content` exactly as {@link renderInputs}
 * gives it, and, when an input carries attachments, `parts`: each input's framed text (the very
 * string `content` holds for it) followed by its attachments, so an image stays next to the words
 * that came with it. Attachments are data: nothing is rendered from them, no label, no frame.
 * Each input is rendered once (an external fence's nonce is drawn once), shared by both forms.
 */
export function renderEntry(
  inputs: readonly PendingInput[],
  carrier: DeliveryCarrier,
  randomBytes?: RandomBytes,
): { content: string; parts?: UserPart[] } {
  const live = carrier === "steer";
  const texts = inputs.map((input) => renderInput(input, live, randomBytes));
  const content = carrier === "resume" ? [RESUME_HEAD, ...texts].join("\n\n") : texts.join("\n\n");
  if (!inputs.some((input) => input.attachments !== undefined)) return { content };
  const parts: UserPart[] = [];
  if (carrier === "resume") parts.push({ type: "text", text: RESUME_HEAD });
  inputs.forEach((input, i) => {
    const text = texts[i] ?? "";
    // An input of images only, from nobody in particular, has no text to send.
    if (text !== "") parts.push({ type: "text", text });
    for (const attachment of input.attachments ?? []) parts.push({ ...attachment });
  });
  return { content, parts };
}
