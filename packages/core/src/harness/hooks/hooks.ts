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
import type { ToolCall, ToolResultStatus } from "../../protocol/transcript.ts";

/** A type with every property, at every depth, read-only: what a hook may look at but not change. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<DeepReadonly<K>, DeepReadonly<V>>
    : T extends ReadonlySet<infer U>
      ? ReadonlySet<DeepReadonly<U>>
      : T extends readonly (infer U)[]
        ? readonly DeepReadonly<U>[]
        : T extends object
          ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
          : T;

/**
 * What every hook is given: one object, the same fields for each hook (the task, the leg, the
 * principal, the folded state), plus what that hook is about (the request, the turn, the call, the
 * result, the final text), so every hook is written `hook(context)`.
 */
export interface HookContext {
  readonly taskId: string;
  readonly legId: string;
  /** The task's principal. */
  readonly principal: string;
  /** The folded state when the hook runs; read-only (the harness owns it). */
  readonly state: DeepReadonly<TaskState>;
}

/** Words for the model, delivered in a `<system-reminder>` before its next call. */
export interface HookFeedback {
  /** Text for the model, framed as a `<system-reminder>` and recorded as `hook_feedback`. */
  feedback?: string;
}

/**
 * What a `beforeTool` hook decides for a call: run it, deny it with a reason the model sees, ask a
 * person, or run it with another input.
 */
export type BeforeToolDecision =
  | { action: "allow" }
  | { action: "deny"; reason: string }
  /** Ask a person, whatever the tool's own policy. */
  | { action: "require_approval" }
  /** Run with this input instead (checked against the schema, and approved again if the tool needs it). */
  | { action: "replace"; input: JsonValue };

/** Host code that watches and steers the loop; every hook takes one context object. */
export interface Hooks {
  /** Before each model call: `request` is what the model will be sent. */
  beforeModel?(
    context: HookContext & { readonly request: ModelRequest },
  ): HookFeedback | undefined | Promise<HookFeedback | undefined>;
  /** After a turn is collected: its text and the tool calls it asks for. */
  afterModel?(
    context: HookContext & { readonly text: string; readonly toolCalls: readonly ToolCall[] },
  ): HookFeedback | undefined | Promise<HookFeedback | undefined>;
  /** Before a call runs: allow, deny, ask a person, or replace its input. */
  beforeTool?(
    context: HookContext & { readonly call: ToolCall },
  ): BeforeToolDecision | undefined | Promise<BeforeToolDecision | undefined>;
  /**
   * After a call ran: return `content` to replace what the model will be told. The result of an
   * untrusted tool (fenced) stays untrusted: content returned without its fence is fenced again.
   */
  afterTool?(
    context: HookContext & {
      readonly call: ToolCall;
      readonly result: { readonly status: ToolResultStatus; readonly content: string };
    },
  ): { content?: string } | undefined | Promise<{ content?: string } | undefined>;
  /** The agent would finish with `text`: return `{ continue: true, feedback }` to send it back to work. */
  onStop?(
    context: HookContext & { readonly text: string },
  ): { continue: true; feedback: string } | undefined | Promise<{ continue: true; feedback: string } | undefined>;
}

/** A hook's name, as recorded in `hook_failed` notes and `hook_feedback` events. */
export type HookName = keyof Hooks;

/**
 * How hooks are run: their timeout, whether a failing hook fails open or closed, and how often
 * `onStop` may send the agent back to work.
 */
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
