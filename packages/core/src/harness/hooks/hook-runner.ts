/**
 * The hooks of one leg, as the loop calls them: each under its timeout, failures recorded and
 * resolved open or closed, feedback recorded as `hook_feedback` with its exact framed bytes.
 */
import type { OpenToolCall } from "../../core/fold.ts";
import { formatHookFeedback, refence } from "../../core/trust-framing.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { ToolCall } from "../../protocol/transcript.ts";
import type { LegWriter } from "../leg/event-writer.ts";
import type { LegContext } from "../leg/leg-context.ts";
import type { CallOutcome } from "../tools/run-tool-call.ts";
import type { BeforeToolDecision, HookContext, HookName, HookSettings, Hooks } from "./hooks.ts";
import { DEFAULT_HOOK_TIMEOUT_MS, failureMode, runHook } from "./run-one-hook.ts";

/** A hook failed closed where that fails the task. */
export interface HookFailure {
  hook: HookName;
  message: string;
}

export class LegHooks {
  readonly #ctx: LegContext;
  readonly #hooks: Hooks;
  readonly #settings: HookSettings;
  readonly #w: LegWriter;
  readonly #legId: string;
  /** Feedback given after a turn that asked for tools waits until their results are recorded. */
  #queued: string[] = [];
  #continuations = 0;

  constructor(ctx: LegContext) {
    this.#ctx = ctx;
    this.#hooks = ctx.agent.hooks ?? {};
    this.#settings = ctx.agent.hookSettings ?? {};
    this.#w = ctx.writer;
    this.#legId = ctx.legId;
  }

  #context(): HookContext {
    return { taskId: this.#ctx.taskId, legId: this.#legId, principal: this.#w.state.principal, state: this.#w.state };
  }

  #feedbackEvent(hook: HookName, text: string): TaskEvent {
    return { type: "hook_feedback", v: 1, hook, content: formatHookFeedback(text), legId: this.#legId };
  }

  /** Run a hook; on failure record it and say whether it failed closed. */
  async #run<T>(
    hook: HookName,
    call: () => T | Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; closed: boolean; message: string }> {
    const result = await runHook(call, this.#settings.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS);
    if (result.ok) return result;
    const mode = failureMode(this.#settings, hook);
    await this.#w.append([
      {
        type: "engine_note",
        v: 1,
        kind: "hook_failed",
        text: `The ${hook} hook failed (${result.message}); it fails ${mode}.`,
        data: { hook, mode, message: result.message },
        legId: this.#legId,
      },
    ]);
    return { ok: false, closed: mode === "closed", message: result.message };
  }

  /** Before a model call: record queued and fresh feedback. Returns a failure to fail the task on. */
  async beforeModel(request: () => ModelRequest): Promise<HookFailure | undefined> {
    const events = this.#queued.splice(0).map((text) => this.#feedbackEvent("afterModel", text));
    if (events.length > 0) await this.#w.append(events);
    const hook = this.#hooks.beforeModel;
    if (hook === undefined) return undefined;
    const result = await this.#run("beforeModel", () =>
      hook.call(this.#hooks, { ...this.#context(), request: request() }),
    );
    if (!result.ok) return result.closed ? { hook: "beforeModel", message: result.message } : undefined;
    const feedback = result.value?.feedback;
    if (feedback !== undefined && feedback.trim() !== "")
      await this.#w.append([this.#feedbackEvent("beforeModel", feedback)]);
    return undefined;
  }

  /** After a turn is collected: its feedback reaches the model before the next call. */
  async afterModel(text: string, toolCalls: readonly ToolCall[]): Promise<HookFailure | undefined> {
    const hook = this.#hooks.afterModel;
    if (hook === undefined) return undefined;
    const result = await this.#run("afterModel", () => hook.call(this.#hooks, { ...this.#context(), text, toolCalls }));
    if (!result.ok) return result.closed ? { hook: "afterModel", message: result.message } : undefined;
    const feedback = result.value?.feedback;
    if (feedback !== undefined && feedback.trim() !== "") this.#queued.push(feedback);
    return undefined;
  }

  /** The hook's decision on a call; a failure closed denies it. */
  async beforeTool(call: OpenToolCall): Promise<BeforeToolDecision> {
    const hook = this.#hooks.beforeTool;
    if (hook === undefined) return { action: "allow" };
    const { callId, name, input } = call;
    const result = await this.#run("beforeTool", () =>
      hook.call(this.#hooks, { ...this.#context(), call: { callId, name, input } }),
    );
    if (!result.ok)
      return result.closed
        ? { action: "deny", reason: `the beforeTool hook failed: ${result.message}` }
        : { action: "allow" };
    return result.value ?? { action: "allow" };
  }

  /** The outcome the model is told; a failure closed turns it into an error. */
  async afterTool(call: OpenToolCall, outcome: CallOutcome): Promise<CallOutcome> {
    const hook = this.#hooks.afterTool;
    if (hook === undefined) return outcome;
    const { callId, name, input } = call;
    const result = await this.#run("afterTool", () =>
      hook.call(this.#hooks, {
        ...this.#context(),
        call: { callId, name, input },
        result: { status: outcome.status, content: outcome.content },
      }),
    );
    if (!result.ok) {
      return result.closed
        ? { status: "error", content: `The afterTool hook failed: ${result.message}`, durationMs: outcome.durationMs }
        : outcome;
    }
    const content = result.value?.content;
    if (content === undefined) return outcome;
    const { truncated: _dropped, ...rest } = outcome;
    // A rewritten untrusted result stays untrusted: fenced as the original was, if the hook did not.
    return { ...rest, content: refence(outcome.content, content, this.#ctx.options.randomBytes) };
  }

  /** Whether an `onStop` hook may still send the agent back (it runs when the agent would finish). */
  get stopHook(): boolean {
    return this.#hooks.onStop !== undefined && this.#continuations < (this.#settings.maxStopContinuations ?? 10);
  }

  /** The agent would finish: `continue` when the hook sends it back (its feedback is recorded). */
  async onStop(text: string): Promise<"stop" | "continue" | HookFailure> {
    const hook = this.#hooks.onStop;
    if (hook === undefined || this.#continuations >= (this.#settings.maxStopContinuations ?? 10)) return "stop";
    const result = await this.#run("onStop", () => hook.call(this.#hooks, { ...this.#context(), text }));
    if (!result.ok) return result.closed ? { hook: "onStop", message: result.message } : "stop";
    if (result.value?.continue !== true) return "stop";
    this.#continuations++;
    await this.#w.append([this.#feedbackEvent("onStop", result.value.feedback)]);
    return "continue";
  }
}
