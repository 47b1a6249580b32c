/**
 * One case of an experiment, run as a task: started under the id its experiment minted (once: a
 * case whose task exists is continued, never started again), given the case's later inputs at
 * the turns the case says, run leg after leg while it has work, then scored. A task that parks
 * for a person (an approval) is not waited for: it is scored as it stands.
 */
import {
  type Agent,
  type HarnessOptions,
  isTerminal,
  runLeg,
  type Store,
  sendInput,
  startTask,
} from "@sema-agent/core";
import { type ContentPart, isSemaError, type JsonValue } from "@sema-agent/core/protocol";
import { type Scorer, type ScorerResult, scoreTask } from "@sema-agent/core/scoring";
import type { CaseInput, DatasetCase } from "../datasets/dataset-case.ts";

/** How one case runs: the experiment's store, agent, harness settings and scorers. */
export interface CaseRun {
  store: Store;
  agent: Agent;
  agentName: string;
  model?: string;
  principal: string;
  experimentId: string;
  scorers: readonly Scorer[];
  harness: Omit<HarnessOptions, "store" | "agent">;
  /** At most this many legs per case (a guard against a task that never settles). */
  maxLegs: number;
  signal?: AbortSignal;
}

/** The input id a case's `index`-th input is sent under: the same on every run, so it is recorded once. */
function inputIdOf(experimentId: string, caseId: string, index: number): string {
  return `eval-${experimentId}-${caseId}-${index}`;
}

function objectiveOf(c: DatasetCase): string | ContentPart[] {
  if (c.attachments === undefined || c.attachments.length === 0) return c.input;
  const parts: ContentPart[] = [{ type: "text", text: c.input }];
  for (const a of c.attachments)
    parts.push(
      a.mediaType.startsWith("image/")
        ? { type: "image", data: a.data, mediaType: a.mediaType }
        : { type: "file", data: a.data, mediaType: a.mediaType, ...(a.name === undefined ? {} : { filename: a.name }) },
    );
  return parts;
}

async function send(run: CaseRun, taskId: string, c: DatasetCase, due: (input: CaseInput) => boolean): Promise<void> {
  for (const [index, input] of (c.inputs ?? []).entries()) {
    if (!due(input)) continue;
    await sendInput(run.store, taskId, {
      text: input.text,
      carrier: input.carrier,
      source: input.source,
      actor: { id: "eval", verified: false },
      inputId: inputIdOf(run.experimentId, c.id, index),
    });
  }
}

/** The agent with one more `afterModel` hook: the case's inputs due after this turn are sent before the leg goes on. */
function withInputs(run: CaseRun, c: DatasetCase): Agent {
  if ((c.inputs ?? []).every((input) => input.afterTurn === 0)) return run.agent;
  const own = run.agent.hooks?.afterModel;
  return {
    ...run.agent,
    hooks: {
      ...run.agent.hooks,
      async afterModel(context) {
        const feedback = await own?.(context);
        // The state is as it was before this turn is recorded: this is turn sessionSeq + 1.
        const turns = context.state.summary.sessionSeq + 1;
        await send(run, context.taskId, c, (input) => input.afterTurn === turns);
        return feedback;
      },
    },
  };
}

/** Start the case's task unless it exists; a task started meanwhile by another runner counts as existing. */
async function ensureTask(run: CaseRun, taskId: string, c: DatasetCase): Promise<void> {
  // Created at once, refused (TaskExists, nothing written) when it is there: most cases of a run
  // are new, and a look-up first would throw and catch TaskNotFound for each.
  const metadata: { [key: string]: JsonValue } = {
    ...c.metadata,
    eval: { experiment: run.experimentId, case: c.id },
  };
  try {
    await startTask(run.store, {
      taskId,
      objective: objectiveOf(c),
      principal: run.principal,
      agent: run.agentName,
      ...(run.model === undefined ? {} : { model: run.model }),
      metadata,
    });
  } catch (error) {
    if (!isSemaError(error, "TaskExists")) throw error;
  }
}

/** Resolves once nobody holds `taskId`'s lease (released, or lapsed by this clock), polling; throws on a stop. */
async function leaseFreed(run: CaseRun, taskId: string): Promise<void> {
  const now = run.harness.clock ?? Date.now;
  for (;;) {
    if (run.signal?.aborted === true) throw run.signal.reason;
    const { lease } = await run.store.getTask(taskId);
    if (lease === undefined || Date.parse(lease.expiresAt) <= now()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, LEASE_POLL_MS);
      function done() {
        clearTimeout(timer);
        run.signal?.removeEventListener("abort", done);
        resolve();
      }
      run.signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/** How often a case whose task another host runs looks whether it has finished its leg. */
const LEASE_POLL_MS = 50;

/** Run (or continue) the case's task while it has work, then score it; the scorers' outcomes. */
export async function runCase(run: CaseRun, taskId: string, c: DatasetCase): Promise<ScorerResult[]> {
  await ensureTask(run, taskId, c);
  // Recorded under fixed ids: sent again after a crash, they are not recorded twice.
  await send(run, taskId, c, (input) => input.afterTurn === 0);
  const options: HarnessOptions = { ...run.harness, store: run.store, agent: withInputs(run, c) };
  for (let legs = 0; legs < run.maxLegs; ) {
    if (run.signal?.aborted === true) throw run.signal.reason;
    const { summary } = await run.store.getTask(taskId);
    if (isTerminal(summary.status)) break;
    // A leg left running by a process that died is taken over (once its lease is free); a parked
    // task with nothing to do waits for a person, whom an experiment does not have.
    if (!summary.runnable && summary.status !== "running") break;
    try {
      // A stop parks the task as shut down, runnable for the experiment's next run (not interrupted).
      await runLeg(options, taskId, run.signal === undefined ? {} : { shutdown: run.signal });
      legs++;
    } catch (error) {
      // A worker sharing the store claimed the task (it is runnable to them too) and runs its leg
      // as the same served agent, or took the lease over once ours lapsed (a stalled host): wait
      // for that leg, then go on from where it left the task.
      if (!isSemaError(error, "LeaseHeld") && !isSemaError(error, "LeaseLost")) throw error;
      await leaseFreed(run, taskId);
    }
  }
  const expected = c.expected;
  return scoreTask(run.store, taskId, run.scorers, {
    experiment: run.experimentId,
    principal: run.principal,
    ...(expected === undefined ? {} : { expected }),
    ...(run.signal === undefined ? {} : { signal: run.signal }),
  });
}
