/**
 * Stored events after which the model's next step begins (what its next call sees changes
 * there): a step's live deltas all follow the last of these before its `model_turn`.
 */
import type { StoredEvent } from "@sema-agent/core";

const STEP_BOUNDARIES: ReadonlySet<string> = new Set([
  "leg_started",
  "model_turn",
  "tool_result",
  "user_message",
  "hook_feedback",
  "compaction",
]);

export function isStepBoundary(event: StoredEvent): boolean {
  return STEP_BOUNDARIES.has(event.type);
}
