/**
 * Hooks: host code that watches and steers the loop (design §6). Each runs under a timeout; one that
 * throws or times out is a recorded failure (`engine_note` kind `hook_failed`) and then either
 * fails open (as if the hook had not been there) or closed (the guarded action does not happen),
 * per hook. What a hook says to the model is recorded as `hook_feedback`, framed by
 * `formatHookFeedback`, so a replay never runs the hook again to know it.
 */
import type { TaskState } from "../../core/fold.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { StreamEvent } from "../../protocol/stream-event.ts";
import type { ToolCall, ToolResultStatus } from "../../protocol/transcript.ts";

export interface HookContext {
  taskId: string;
  legId: string;
  principal: string;
  /** The folded state when the hook runs. Read it; never change it. */
  state: TaskState;
}

/** Words for the model, delivered in a `<system-reminder>` before its next call. */
export interface HookFeedback {
  feedback?: string;
}

export type BeforeToolDecision =
  | { action: "allow" }
  | { action: "deny"; reason: string }
  /** Ask a person, whatever the tool's own policy. */
  | { action: "require_approval" }
  /** Run with this input instead (checked against the schema, and approved again if the tool needs it). */
  | { action: "replace"; input: JsonValue };

export interface Hooks {
  beforeModel?(
    context: HookContext & { request: ModelRequest },
  ): HookFeedback | undefined | Promise<HookFeedback | undefined>;
  afterModel?(
    context: HookContext & { text: string; toolCalls: readonly ToolCall[] },
  ): HookFeedback | undefined | Promise<HookFeedback | undefined>;
  beforeTool?(
    call: ToolCall,
    context: HookContext,
  ): BeforeToolDecision | undefined | Promise<BeforeToolDecision | undefined>;
  /** Return `content` to replace what the model will be told. */
  afterTool?(
    call: ToolCall,
    result: { status: ToolResultStatus; content: string },
    context: HookContext,
  ): { content?: string } | undefined | Promise<{ content?: string } | undefined>;
  /** The agent would finish: return `{ continue: true, feedback }` to send it back to work. */
  onStop?(
    context: HookContext & { text: string },
  ): { continue: true; feedback: string } | undefined | Promise<{ continue: true; feedback: string } | undefined>;
  /** Every event of the leg, stored and ephemeral. Observes only; its failures are ignored. */
  onEvent?(event: StreamEvent): void;
}

export type HookName = Exclude<keyof Hooks, "onEvent">;

export interface HookSettings {
  /** Default 10 s per call. */
  timeoutMs?: number;
  /**
   * What a failure means, per hook. `closed` for beforeTool denies the call; for afterTool turns
   * the result into an error; for beforeModel, afterModel and onStop fails the task. Default:
   * beforeTool closed (a guard that cannot answer must not let the call through), the rest open.
   */
  failure?: Partial<Record<HookName, "open" | "closed">>;
  /** How many times onStop may send the agent back to work in one leg (default 10). */
  maxStopContinuations?: number;
}
