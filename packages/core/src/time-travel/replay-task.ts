/**
 * `replayTask`: run a task again, in memory, against a recording of its model and its tools, and
 * compare every model request with the one the recorded run sent (docs/guide/time-travel.md). No
 * tool runs and nothing leaves the process: the model answers with the recorded turns, each tool
 * with its recorded result, and what people and other processes wrote is fed in where it was
 * recorded. A turn recorded before requests were digested (`model_turn` v 1) is `unverified`.
 */
import { MemoryStore } from "../adapters/memory-store.ts";
import { Folder, fold, isExternalCall } from "../core/fold.ts";
import { reduceSummary, summarize } from "../core/task-summary.ts";
import type { Agent, HarnessOptions } from "../harness/agent.ts";
import { runLeg } from "../harness/leg/run-leg.ts";
import type { Store } from "../ports/store.ts";
import { TaskNotFoundError } from "../protocol/errors.ts";
import type { ModelTurnEvent, StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { isFed, isStep } from "./event-origin.ts";
import { blobDigests } from "./export-task.ts";
import { type ComparedCall, RecordedModel, RecordedSummaries } from "./recorded-model.ts";
import { recordedNonces } from "./recorded-nonces.ts";
import { recordedTools } from "./recorded-tools.ts";
import { type FedEvent, ReplayStore } from "./replay-store.ts";
import { type RequestPart, requestDiff } from "./request-diff.ts";
import { unstamped } from "./unstamped.ts";

/** What a replay runs: the agent as it is now (its model is never called), and whose task it must be. */
export interface ReplayOptions {
  /** The agent: instructions, tools, settings, hooks as they are now. Its model is not called. */
  agent: Agent;
  /** When given, a task of another principal is not found (`TaskNotFound`). */
  principal?: string;
}

/** One recorded model turn as the replay found it. */
export interface ReplayTurn {
  /** 1-based, among the turns replayed. */
  turn: number;
  /** The recorded `model_turn`'s seq. */
  seq: number;
  /** `identical`: the same request digest; `different`: not; `unverified`: the turn recorded no digest. */
  verdict: "identical" | "unverified" | "different";
}

/** Where a replay first parted from the recording, and how. */
export interface ReplayDivergence {
  /** The turn that differs (1-based); one past the last when the replay called the model more or fewer times. */
  turn: number;
  /** The recorded turn's seq, when there is one. */
  seq?: number;
  /** The parts of the request that differ (empty when the number of calls did). */
  parts: RequestPart[];
  /** What differs, readably: which part, which entry, which bytes. */
  diff: string;
}

/**
 * A replay's result. `identical`: every turn's request matched its recorded digest; `unverified`:
 * no difference was found, but some turns recorded no digest; `diverged`: see `divergence`.
 */
export interface ReplayReport {
  taskId: string;
  outcome: "identical" | "unverified" | "diverged";
  /** The model turns the recording holds (after a fork's copied part, which its source replays). */
  recordedTurns: number;
  turns: ReplayTurn[];
  divergence?: ReplayDivergence;
}

/** Where a fork's own part begins: after its `task_forked` (and the edit written with it); 1 for any other task. */
function replayBase(events: readonly StoredEvent[]): number {
  let base = 1;
  for (const event of events) {
    if (event.type !== "task_forked" || event.origin !== "fork") continue;
    base = event.seq + (event.replacedInput !== undefined || event.replacedResult !== undefined ? 1 : 0);
  }
  return base;
}

/** Calls answered from outside (external tools): their recorded results are fed, not replayed. */
function externalCalls(events: readonly StoredEvent[]): Set<string> {
  const calls = new Set<string>();
  const folder = new Folder();
  for (const event of events) {
    folder.apply(event);
    if (event.type !== "model_turn") continue;
    for (const call of event.toolCalls) if (isExternalCall(folder.state, call)) calls.add(call.callId);
  }
  return calls;
}

/** The replay agent: the agent's definitions, the recording's model, tools and summaries; children never run. */
function replayAgent(agent: Agent, events: readonly StoredEvent[], model: RecordedModel): Agent {
  const summaries = events.flatMap((e) => (e.type === "compaction" ? [e.summary] : []));
  const replay: Agent = { ...agent, model, tools: recordedTools(agent.tools ?? [], events) };
  if (agent.compaction !== undefined)
    replay.compaction = { ...agent.compaction, model: new RecordedSummaries(summaries) };
  if (agent.delegation !== undefined) replay.delegation = { ...agent.delegation, runChildren: false };
  return replay;
}

/**
 * Replay `taskId` from `store` with `options.agent`, and report whether every model request is
 * the one recorded. The store is only read. `TaskNotFound` for an unknown task or one of another
 * `principal`.
 */
export async function replayTask(store: Store, taskId: string, options: ReplayOptions): Promise<ReplayReport> {
  const record = await store.getTask(taskId);
  if (options.principal !== undefined && record.principal !== options.principal) throw new TaskNotFoundError(taskId);
  const events = await store.read(taskId);
  const base = replayBase(events);
  const external = externalCalls(events);
  const recordedTurns = events.filter(
    (e): e is StoredEvent & ModelTurnEvent => e.type === "model_turn" && e.seq > base,
  );

  const fed: FedEvent[] = [];
  let steps = 0;
  let summary = summarize(events.slice(0, base));
  for (const event of events.slice(base)) {
    if (isFed(event, external)) fed.push({ steps, event });
    else if (isStep(event, external)) steps++;
    // A leg a host began on a task that was not runnable: nothing recorded says why, so the
    // replay begins it where the recording did.
    else if (event.type === "leg_started" && !summary.runnable) fed.push({ steps, leg: true });
    summary = reduceSummary(summary, event);
  }

  const start = Date.parse(events[0]?.at ?? "2026-01-01T00:00:00.000Z");
  const clock = () => start;
  const memory = new MemoryStore({ now: clock });
  const [created, ...more] = events.slice(0, base).map(unstamped) as [
    Extract<TaskEvent, { type: "task_created" }>,
    ...TaskEvent[],
  ];
  await memory.createTask({ taskId, created, more });
  for (const digest of new Set(events.flatMap(blobDigests))) {
    const bytes = await store.getBlob?.(digest);
    if (bytes !== undefined) await memory.putBlob({ digest, bytes });
  }
  const replayStore = new ReplayStore(memory, taskId, fed, external);
  const model = new RecordedModel(recordedTurns);
  const harness: HarnessOptions = {
    store: replayStore,
    agent: replayAgent(options.agent, events, model),
    clock,
    randomBytes: recordedNonces(events),
  };

  // Legs run while the copy has work; when it waits, the next recorded event from outside is fed.
  const bound = events.length + 10;
  for (let round = 0; round < bound && !model.diverged; round++) {
    await replayStore.feed();
    const { summary } = await memory.getTask(taskId);
    const started = replayStore.takeLeg();
    if (summary.runnable || started) await runLeg(harness, taskId);
    else if (replayStore.pending) await replayStore.feed(true);
    else break;
  }
  const asked = approvalDivergence(
    events.filter((e) => e.seq > base),
    (await memory.read(taskId)).filter((e) => e.seq > base),
    recordedTurns,
  );
  await memory.close();
  return report(taskId, events, recordedTurns, model, asked);
}

/**
 * The first call that one run asked a person to approve and the other did not: a change of
 * approval rules (a tool's `needsApproval`, a host's policy) leaves the model's requests as they
 * were, but not what the task does, so the replay reports it too.
 */
function approvalDivergence(
  recorded: readonly StoredEvent[],
  replayed: readonly StoredEvent[],
  turns: readonly (StoredEvent & ModelTurnEvent)[],
): ReplayDivergence | undefined {
  const asks = (log: readonly StoredEvent[]) =>
    new Map(log.flatMap((e) => (e.type === "approval_requested" ? [[e.callId, e.name] as const] : [])));
  const before = asks(recorded);
  const after = asks(replayed);
  for (const [index, turn] of turns.entries()) {
    for (const call of turn.toolCalls) {
      const then = before.has(call.callId);
      if (then === after.has(call.callId)) continue;
      const what = `${call.name} (${call.callId})`;
      const diff = then
        ? `the recording asked a person to approve ${what} before it ran; the replay did not ask`
        : `the replay asked a person to approve ${what}; the recording ran it without asking`;
      return { turn: index + 1, seq: turn.seq, parts: [], diff };
    }
  }
  return undefined;
}

function report(
  taskId: string,
  events: readonly StoredEvent[],
  recordedTurns: readonly (StoredEvent & ModelTurnEvent)[],
  model: RecordedModel,
  asked: ReplayDivergence | undefined,
): ReplayReport {
  const turns: ReplayTurn[] = model.calls.map((call) => ({
    turn: call.turn,
    seq: call.recorded.seq,
    verdict: call.verdict,
  }));
  const out: ReplayReport = { taskId, outcome: "identical", recordedTurns: recordedTurns.length, turns };
  const different = model.calls.find((call) => call.verdict === "different");
  if (different !== undefined) out.divergence = divergenceOf(different, events);
  else if (model.extra !== undefined)
    out.divergence = {
      turn: model.calls.length + 1,
      parts: [],
      diff: `the replay called the model ${model.calls.length + 1} times or more; the recording has ${recordedTurns.length} turns`,
    };
  else if (model.calls.length < recordedTurns.length) {
    const next = recordedTurns[model.calls.length];
    out.divergence = {
      turn: model.calls.length + 1,
      parts: [],
      diff: `the replay ended after ${calls(model.calls.length)}; the recording has ${recordedTurns.length} turns`,
    };
    if (next !== undefined) out.divergence.seq = next.seq;
  }
  // A request that differs at or before the call whose approval did stays the first divergence.
  if (asked !== undefined && (out.divergence === undefined || asked.turn < out.divergence.turn)) out.divergence = asked;
  if (out.divergence !== undefined) out.outcome = "diverged";
  else if (turns.some((turn) => turn.verdict === "unverified")) out.outcome = "unverified";
  return out;
}

function calls(n: number): string {
  return n === 1 ? "1 model call" : `${n} model calls`;
}

function divergenceOf(call: ComparedCall, events: readonly StoredEvent[]): ReplayDivergence {
  const recorded = call.recorded.request;
  const before = fold(events.filter((e) => e.seq < call.recorded.seq));
  const { parts, text } =
    recorded === undefined
      ? { parts: [], text: "" }
      : requestDiff(
          { digest: recorded, transcript: before.transcript },
          { digest: call.digest, request: call.request },
        );
  return { turn: call.turn, seq: call.recorded.seq, parts, diff: text };
}

/** A replay report as text: one line per turn, then the divergence and its diff. */
export function formatReplay(report: ReplayReport): string {
  const lines = [`replay of task ${report.taskId}: ${report.outcome}`];
  for (const turn of report.turns) lines.push(`  turn ${turn.turn} (seq ${turn.seq}): ${turn.verdict}`);
  const d = report.divergence;
  if (d !== undefined) {
    lines.push(`first divergence at turn ${d.turn}${d.seq === undefined ? "" : ` (seq ${d.seq})`}:`);
    lines.push(d.diff);
  }
  return lines.join("\n");
}
