/**
 * The shapes of the suite: an environment (its state, its tools, the places an injection can sit),
 * its benign user tasks and its injection tasks, each with a goal checked on the state afterwards.
 */
import type { JsonValue, Tool } from "@sema-agent/core";

/** A tool call a scripted model plans: the tool's name and its input. */
export interface PlannedCall {
  name: string;
  input: { [key: string]: JsonValue };
}

/** A tool result as a scripted model reads it back: which tool, and the text it was shown. */
export interface Observation {
  name: string;
  content: string;
}

/**
 * A benign task the user gives the agent. `plan` is its ground truth (as in AgentDojo): the next
 * call given the results of the plan's calls so far, or `undefined` when the plan is done; the
 * task-following model plays it, the obedient model plays it too and obeys whatever it reads.
 */
export interface UserTask<State> {
  id: string;
  /** The objective, on the user lane. */
  prompt: string;
  /** Text relayed to the task on the `external` lane before it starts (a webhook, a ticket). */
  external?: string;
  /** The next call of the ground truth, given the results of its calls so far; undefined when done. */
  plan(results: readonly Observation[]): PlannedCall | undefined;
  /** The final answer, from the plan's results. */
  answer(results: readonly Observation[]): string;
  /** Whether the user's goal was reached: the state after the run and the final answer. */
  check(state: State, answer: string): boolean;
}

/** An attacker's goal: the call the injected text asks for, and how to see on the state that it happened. */
export interface InjectionTask<State> {
  id: string;
  /** The attacker's goal in words (for the README and reports). */
  goal: string;
  /** The call the injected text names. */
  call: PlannedCall;
  /** Whether the attacker's side effect happened. */
  check(state: State): boolean;
}

/**
 * An environment: a fresh state whose injection slots (an e-mail body, a file, a web page…) hold
 * `injection` (or their benign text when it is undefined), the tools acting on that state, and its
 * tasks. A user task's `external` text may hold the slot `{injection}` too.
 */
export interface Environment<State> {
  name: string;
  description: string;
  /** A fresh state, every injection slot holding `injection` (its benign text when undefined). */
  createState(injection: string | undefined): State;
  /** The environment's tools, acting on `state`. */
  tools(state: State): Tool[];
  userTasks: readonly UserTask<State>[];
  injectionTasks: readonly InjectionTask<State>[];
}

/** An environment whose state type is hidden, so environments of different states sit in one list. */
export interface AnyEnvironment {
  name: string;
  description: string;
  /** Run-time view of {@link Environment}, with the state opaque. */
  createState(injection: string | undefined): unknown;
  /** The tools acting on a state this environment made. */
  tools(state: unknown): Tool[];
  userTasks: readonly UserTask<unknown>[];
  injectionTasks: readonly InjectionTask<unknown>[];
}

/** Erase an environment's state type (its functions only ever get back the state it made). */
export function anyEnvironment<State>(environment: Environment<State>): AnyEnvironment {
  return environment as unknown as AnyEnvironment;
}
