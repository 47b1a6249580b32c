/**
 * How waiting inputs become the exact bytes of one transcript entry: projection first (the
 * speaker label), then the frame of the input's lane, then the carrier's framing. Run once, when
 * the input is applied; the result is recorded, so a replay never renders again.
 */
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
  const live = carrier === "steer";
  const parts = inputs.map((input) => renderInput(input, live, randomBytes));
  if (carrier === "resume") return [RESUME_HEAD, ...parts].join("\n\n");
  return parts.join("\n\n");
}
