/**
 * `diffTasks`: two tasks' trajectories side by side from their common prefix — inputs, model
 * turns, tool calls and results, decisions, usage and cost — with the first step where they part.
 */
import { costUsd, type ModelPrice, priceOf } from "../harness/budget/budget.ts";
import type { Store } from "../ports/store.ts";
import { TaskNotFoundError } from "../protocol/errors.ts";
import type { Usage } from "../protocol/usage.ts";
import { type TrajectoryStep, trajectory } from "./trajectory.ts";

/** Whose tasks they must be, and the prices to cost them by. */
export interface DiffOptions {
  /** When given, a task of another principal is not found (`TaskNotFound`). */
  principal?: string;
  /** Prices per model (as a budget's `prices`), to add each side's cost. */
  prices?: Readonly<Record<string, ModelPrice>>;
}

/** One side of a diff: the task, its steps, and what its model turns used (and cost, with prices). */
export interface DiffSide {
  taskId: string;
  steps: TrajectoryStep[];
  usage: Usage;
  /** US dollars, when prices were given for every model it used. */
  costUsd?: number;
}

/** Two trajectories: the steps they share from the start, and where they part. */
export interface TaskDiff {
  a: DiffSide;
  b: DiffSide;
  /** How many steps the two share from the start. */
  common: number;
  /** The first steps that differ (absent when one trajectory is a prefix of the other, or both are equal). */
  firstDivergence?: { a?: TrajectoryStep; b?: TrajectoryStep };
  identical: boolean;
}

async function side(store: Store, taskId: string, options: DiffOptions): Promise<DiffSide> {
  const record = await store.getTask(taskId);
  if (options.principal !== undefined && record.principal !== options.principal) throw new TaskNotFoundError(taskId);
  const events = await store.read(taskId);
  const steps = trajectory(events);
  // The task's model, unless a turn names another (a fork's edit changes it from there on).
  let taskModel = "";
  const modelFrom = new Map<number, string>();
  for (const e of events) {
    if ((e.type === "task_created" || e.type === "task_forked") && e.model !== undefined) taskModel = e.model;
    if (e.type === "model_turn") modelFrom.set(e.seq, e.model ?? taskModel);
  }
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let cost: number | undefined = options.prices === undefined ? undefined : 0;
  for (const step of steps) {
    if (step.usage === undefined) continue;
    usage.inputTokens += step.usage.inputTokens;
    usage.outputTokens += step.usage.outputTokens;
    if (step.usage.cachedInputTokens !== undefined)
      usage.cachedInputTokens = (usage.cachedInputTokens ?? 0) + step.usage.cachedInputTokens;
    const model = modelFrom.get(step.seq) ?? "";
    const price = options.prices === undefined ? undefined : priceOf(model, options.prices);
    cost = price === undefined || cost === undefined ? undefined : cost + costUsd(step.usage, price);
  }
  const out: DiffSide = { taskId, steps, usage };
  if (cost !== undefined) out.costUsd = cost;
  return out;
}

/** Compare the trajectories of `a` and `b` (both in `store`). */
export async function diffTasks(store: Store, a: string, b: string, options: DiffOptions = {}): Promise<TaskDiff> {
  const left = await side(store, a, options);
  const right = await side(store, b, options);
  let common = 0;
  while (
    common < left.steps.length &&
    common < right.steps.length &&
    left.steps[common]?.key === right.steps[common]?.key
  )
    common++;
  const identical = common === left.steps.length && common === right.steps.length;
  const diff: TaskDiff = { a: left, b: right, common, identical };
  if (!identical) {
    const first: { a?: TrajectoryStep; b?: TrajectoryStep } = {};
    const sa = left.steps[common];
    const sb = right.steps[common];
    if (sa !== undefined) first.a = sa;
    if (sb !== undefined) first.b = sb;
    diff.firstDivergence = first;
  }
  return diff;
}

function usageText(s: DiffSide): string {
  const cost = s.costUsd === undefined ? "" : `, $${s.costUsd.toFixed(4)}`;
  return `${s.usage.inputTokens} in / ${s.usage.outputTokens} out tokens${cost}`;
}

/** A diff as text: the shared steps once, then each side's own, the first divergence marked. */
export function formatTaskDiff(diff: TaskDiff): string {
  const lines = [`A ${diff.a.taskId}: ${diff.a.steps.length} steps, ${usageText(diff.a)}`];
  lines.push(`B ${diff.b.taskId}: ${diff.b.steps.length} steps, ${usageText(diff.b)}`);
  lines.push(diff.identical ? "the trajectories are identical" : `${diff.common} steps in common`);
  for (const step of diff.a.steps.slice(0, diff.common)) lines.push(`  = ${step.kind.padEnd(8)} ${step.text}`);
  const rest = Math.max(diff.a.steps.length, diff.b.steps.length) - diff.common;
  for (let i = 0; i < rest; i++) {
    const sa = diff.a.steps[diff.common + i];
    const sb = diff.b.steps[diff.common + i];
    const mark = i === 0 ? ">" : " ";
    if (sa !== undefined) lines.push(`${mark} A ${sa.kind.padEnd(8)} ${sa.text}`);
    if (sb !== undefined) lines.push(`${mark} B ${sb.kind.padEnd(8)} ${sb.text}`);
  }
  if (!diff.identical) lines.push("(> marks the first divergence)");
  return lines.join("\n");
}
