import type { HumanInputEvent } from "../protocol/human-input.ts";
import type { JsonValue } from "../protocol/json.ts";
import { OUTPUT_CORRECTION, type TaskEvent, type TaskForkedEvent } from "../protocol/task-event.ts";
import type { TranscriptEntry } from "../protocol/transcript.ts";
import {
  type ApplyingInput,
  type EntryProvenance,
  holdsUntrusted,
  inputProvenance,
  provenanceAt,
  summaryProvenance,
} from "./entry-provenance.ts";
import { DETACHED_CHILD_CONTENT, foldForked } from "./fold-forked.ts";
import {
  type ApprovalState,
  type ChildState,
  EMPTY_STATE,
  isExternalCall,
  type OpenToolCall,
  type PendingInput,
  TASK_STATE_VERSION,
  type TaskState,
  type TimerState,
} from "./task-state.ts";
import { reduceSummary } from "./task-summary.ts";

export {
  type ApprovalState,
  type ChildState,
  EMPTY_STATE,
  isExternalCall,
  type OpenToolCall,
  outstandingReservations,
  type PendingInput,
  TASK_STATE_VERSION,
  type TaskState,
  type TimerState,
} from "./task-state.ts";

/** What the model is told about a call whose leg ended before it had a result. */
export const UNSETTLED_CALL_CONTENT =
  "The tool call was interrupted before it returned a result; its effect is unknown. Check before relying on it or repeating it.";

/**
 * An open fold: owns a private copy of the state and applies events to it one at a time. The
 * state it exposes is its own; callers read it and never mutate it.
 */
export class Folder {
  #s: TaskState;

  constructor(from: TaskState = EMPTY_STATE) {
    // One shallow copy of every collection: entries are immutable once made, so this is enough
    // to keep `from` untouched whatever is applied later.
    this.#s = {
      ...from,
      transcript: [...from.transcript],
      transcriptSeqs: [...from.transcriptSeqs],
      ...(from.inputProvenance === undefined ? {} : { inputProvenance: { ...from.inputProvenance } }),
      inputs: [...from.inputs],
      openToolCalls: [...from.openToolCalls],
      approvals: [...from.approvals],
      grantedTools: [...from.grantedTools],
      children: [...from.children],
      timers: [...(from.timers ?? [])],
    };
  }

  get state(): TaskState {
    return this.#s;
  }

  applyAll(events: Iterable<TaskEvent>): this {
    for (const event of events) this.apply(event);
    return this;
  }

  apply(event: TaskEvent): this {
    const s = this.#s;
    const stamped = (event as { seq?: unknown }).seq;
    const seq = typeof stamped === "number" ? stamped : s.lastSeq + 1;
    s.lastSeq = seq;
    // A stamped event carries its seq; only an unstamped one needs telling (no allocation per event).
    s.summary = reduceSummary(s.summary, event, typeof stamped === "number" ? undefined : { seq });
    switch (event.type) {
      case "task_created":
        s.objective = event.objective;
        s.principal = event.principal;
        if (event.agent !== undefined) s.agent = event.agent;
        if (event.model !== undefined) s.model = event.model;
        if (event.parentTaskId !== undefined) s.parentTaskId = event.parentTaskId;
        if (event.metadata !== undefined) s.metadata = event.metadata;
        if (event.settings !== undefined) s.settings = event.settings;
        break;
      case "leg_started": {
        s.legs += 1;
        const at = (event as { at?: unknown }).at;
        if (typeof at === "string") s.legStartedAt = at;
        break;
      }
      case "leg_ended": {
        // A crashed leg's calls are in doubt, for the recovering leg to settle (design §4).
        if (event.reason !== "parked:crash") this.#settleOpenCalls(seq);
        if (event.reason === "parked:model") s.modelParks = (s.modelParks ?? 0) + 1;
        const at = (event as { at?: unknown }).at;
        if (s.legStartedAt !== undefined && typeof at === "string")
          s.activeMs += Math.max(0, Date.parse(at) - Date.parse(s.legStartedAt));
        delete s.legStartedAt;
        break;
      }
      case "human_input":
        this.#input(event, seq);
        if (s.timers.length > 0) s.timers = s.timers.filter((timer) => timer.wakeId !== event.inputId);
        break;
      case "wake_scheduled": {
        const timer: TimerState = { wakeId: event.wakeId, due: event.due, text: event.text, source: event.source };
        if (event.from !== undefined) timer.from = event.from;
        s.timers = [...s.timers.filter((t) => t.wakeId !== event.wakeId), timer].sort(
          (a, b) => Date.parse(a.due) - Date.parse(b.due),
        );
        break;
      }
      case "user_message":
        this.#push(
          event.parts === undefined
            ? { role: "user", entryId: event.entryId, content: event.content }
            : { role: "user", entryId: event.entryId, content: event.content, parts: event.parts },
          seq,
        );
        this.#setProvenance(event.entryId, inputProvenance(event.content, this.#takeApplying(event.inputIds)));
        break;
      case "hook_feedback":
        this.#push({ role: "user", entryId: `hook:${seq}`, content: event.content }, seq);
        if (event.hook === OUTPUT_CORRECTION) s.outputCorrections = (s.outputCorrections ?? 0) + 1;
        break;
      case "model_turn": {
        s.lastPromptTokens = event.usage.inputTokens;
        // The model answered: the next outage starts its backoff from the beginning.
        if (s.modelParks !== undefined) delete s.modelParks;
        const entry: TranscriptEntry = { role: "assistant", text: event.text, toolCalls: event.toolCalls };
        if (event.reasoning !== undefined) entry.reasoning = event.reasoning;
        this.#push(entry, seq);
        for (const call of event.toolCalls) {
          if (s.openToolCalls.some((open) => open.callId === call.callId)) continue;
          s.openToolCalls.push({ ...call, started: false, attempt: 0, legId: event.legId });
        }
        break;
      }
      case "tool_call_started": {
        // The Folder owns its arrays (copied at construction); the entries are shared, so replace one.
        const index = s.openToolCalls.findIndex((open) => open.callId === event.callId);
        const open = s.openToolCalls[index];
        if (open !== undefined) {
          s.openToolCalls[index] = {
            ...open,
            started: true,
            attempt: event.attempt,
            ...(event.input === undefined ? {} : { input: event.input }),
          };
        }
        break;
      }
      case "tool_checkpoint": {
        // Only a started call that is still open keeps a checkpoint: a late one is history only.
        const index = s.openToolCalls.findIndex((open) => open.callId === event.callId);
        const open = s.openToolCalls[index];
        if (open?.started === true) s.openToolCalls[index] = { ...open, checkpoint: event.data };
        break;
      }
      case "tool_result": {
        // Only a call the model made and that is still open gets a result in the transcript, so
        // every call is answered exactly once whatever the log holds.
        const index = s.openToolCalls.findIndex((open) => open.callId === event.callId);
        if (index === -1) break;
        s.openToolCalls.splice(index, 1);
        this.#push(
          { role: "tool", callId: event.callId, name: event.name, status: event.status, content: event.content },
          seq,
        );
        if (s.approvals.length > 0) s.approvals = s.approvals.filter((approval) => approval.callId !== event.callId);
        break;
      }
      case "approval_requested": {
        if (s.approvals.some((a) => a.callId === event.callId)) break;
        const approval: ApprovalState = {
          callId: event.callId,
          name: event.name,
          inputJson: event.inputJson,
          digest: event.digest,
        };
        if (event.provenance !== undefined) approval.provenance = event.provenance;
        s.approvals.push(approval);
        break;
      }
      case "approval_decided":
        s.approvals = s.approvals.map((approval) => {
          if (approval.callId !== event.callId || approval.decision !== undefined) return approval;
          const decided: ApprovalState = { ...approval, decision: event.decision, actor: event.actor };
          if (event.reason !== undefined) decided.reason = event.reason;
          if (
            event.decision === "approve" &&
            event.scope === "tool-for-task" &&
            !s.grantedTools.includes(approval.name)
          ) {
            s.grantedTools.push(approval.name);
          }
          return decided;
        });
        break;
      case "child_task":
        this.#child(event);
        break;
      case "compaction":
        this.#compact(event.summary, event.entryId, event.throughSeq);
        delete s.lastPromptTokens;
        break;
      case "external_tools":
        // Replaced whole, never mutated: the shared array needs no copy.
        if (event.tools.length === 0) delete s.externalTools;
        else s.externalTools = event.tools;
        break;
      case "task_completed":
        s.result = event.result;
        delete s.outputCorrections;
        break;
      case "task_failed":
        s.error = { ...event.error };
        delete s.outputCorrections;
        break;
      case "task_cancelled":
        this.#settleOpenCalls(seq, true);
        break;
      case "parent_notified":
        s.reportedEnd = true;
        break;
      case "task_forked":
        this.#forked(event, seq);
        break;
      case "engine_note":
      case "interrupt_requested":
      case "resume_requested":
        break;
    }
    return this;
  }

  #push(entry: TranscriptEntry, seq: number): void {
    this.#s.transcript.push(entry);
    this.#s.transcriptSeqs.push(seq);
  }

  /** Record a user entry's spans (the Folder owns its copy of the record). */
  #setProvenance(entryId: string, provenance: EntryProvenance): void {
    const s = this.#s;
    if (s.inputProvenance === undefined) s.inputProvenance = {};
    s.inputProvenance[entryId] = provenance;
  }

  /** The inputs an entry applies, as their `applied` frames left them (an unknown one as a user input). */
  #takeApplying(inputIds: readonly string[]): ApplyingInput[] {
    const s = this.#s;
    const applying = s.applying ?? [];
    const taken = inputIds.map(
      (inputId) => applying.find((input) => input.inputId === inputId) ?? { inputId, source: "user" as const },
    );
    const rest = applying.filter((input) => !inputIds.includes(input.inputId));
    if (rest.length === 0) delete s.applying;
    else s.applying = rest;
    return taken;
  }

  #input(event: HumanInputEvent, seq: number): void {
    const s = this.#s;
    const index = s.inputs.findIndex((input) => input.inputId === event.inputId);
    if (event.delivery === "applied" || event.delivery === "dropped") {
      const pending = index === -1 ? undefined : s.inputs[index];
      if (index !== -1) s.inputs.splice(index, 1);
      if (event.delivery === "applied") {
        // Kept until the entry that renders it, whose spans it names (the same append).
        const applying: ApplyingInput = { inputId: event.inputId, source: pending?.source ?? event.source };
        if (pending !== undefined) applying.text = pending.text;
        const actor = pending?.actor ?? event.actor;
        if (actor !== undefined) applying.actor = actor;
        s.applying = [...(s.applying ?? []).filter((input) => input.inputId !== event.inputId), applying];
      }
      return;
    }
    const pending: PendingInput = {
      inputId: event.inputId,
      carrier: event.carrier,
      source: event.source,
      delivery: event.delivery,
      text: event.text ?? "",
      seq,
    };
    if (event.attachments !== undefined) pending.attachments = event.attachments;
    if (event.actor !== undefined) pending.actor = event.actor;
    if (event.policy !== undefined) pending.policy = event.policy;
    if (event.legId !== undefined) pending.legId = event.legId;
    // A later stage of the same input (received → parked) replaces it in place.
    if (index === -1) s.inputs.push(pending);
    else s.inputs[index] = { ...pending, seq: s.inputs[index]?.seq ?? seq };
  }

  /**
   * A leg that ends (or a task cancelled) with calls unanswered: each gets an interrupted result,
   * so the transcript pairs every call, except a call that waits for an approval, a child task
   * (running, or ended with its result not yet given to the call) or an external tool's result
   * while the task is parked: that one is answered later.
   */
  #settleOpenCalls(seq: number, cancelled = false): void {
    const s = this.#s;
    const waiting = (call: OpenToolCall) =>
      !cancelled &&
      (s.approvals.some((a) => a.callId === call.callId) ||
        // A child that ended before the leg did answers its call in the next leg (its result
        // may land between the spawn and the park: never call that call interrupted).
        s.children.some((c) => c.callId === call.callId) ||
        isExternalCall(s, call));
    this.#interruptCalls((open) => !waiting(open), UNSETTLED_CALL_CONTENT, seq);
  }

  /** Answer the open calls `settle` picks with an interrupted result saying `content`; keep the rest open. */
  #interruptCalls(settle: (call: OpenToolCall) => boolean, content: string, seq: number): void {
    const s = this.#s;
    const kept: OpenToolCall[] = [];
    for (const open of s.openToolCalls) {
      if (!settle(open)) {
        kept.push(open);
        continue;
      }
      this.#push({ role: "tool", callId: open.callId, name: open.name, status: "interrupted", content }, seq);
    }
    s.openToolCalls = kept;
  }

  #child(event: Extract<TaskEvent, { type: "child_task" }>): void {
    const s = this.#s;
    const index = s.children.findIndex((child) => child.childTaskId === event.childTaskId);
    const base: ChildState =
      index === -1 ? { childTaskId: event.childTaskId, status: "running" } : { ...(s.children[index] as ChildState) };
    if (event.callId !== undefined) base.callId = event.callId;
    // The first spawn's share is the reservation; a spawn recorded again does not change it.
    if (event.phase === "spawned" && event.reserved !== undefined && index === -1) base.reserved = event.reserved;
    if (event.phase === "result") {
      // A child ends once for its ledger: a result repeated after the first releases nothing
      // more and changes neither what it still held nor its turns (its outcome, as before, is the last).
      const first = base.status === "running";
      base.status = event.status ?? "completed";
      if (event.result !== undefined) base.result = event.result;
      if (first && event.turns !== undefined) base.turns = event.turns;
      if (first && event.held !== undefined) base.held = event.held;
      // Once untrusted, always: a later result of the same child never makes its answer cleaner.
      if (event.untrusted !== undefined && base.untrusted === undefined) base.untrusted = [...event.untrusted];
    }
    if (index === -1) s.children.push(base);
    else s.children[index] = base;
  }

  /** A fork's copy ends (see `foldForked`); the calls of children still running get an answer. */
  #forked(event: TaskForkedEvent, seq: number): void {
    const detachedCalls = foldForked(this.#s, event);
    if (detachedCalls.size > 0)
      this.#interruptCalls((open) => detachedCalls.has(open.callId), DETACHED_CHILD_CONTENT, seq);
  }

  #compact(summary: string, entryId: string, throughSeq: number): void {
    const s = this.#s;
    let keepFrom = 0;
    while (keepFrom < s.transcriptSeqs.length && (s.transcriptSeqs[keepFrom] ?? 0) <= throughSeq) keepFrom++;
    // Never summarize away the turn of a call still waiting for its result.
    const open = new Set(s.openToolCalls.map((call) => call.callId));
    const firstOpenTurn = s.transcript.findIndex(
      (e) => e.role === "assistant" && e.toolCalls.some((c) => open.has(c.callId)),
    );
    if (firstOpenTurn !== -1 && firstOpenTurn < keepFrom) keepFrom = firstOpenTurn;
    // Nor keep a result whose call was summarized: tool-call/result pairs are never split.
    const asked = new Set<string>();
    const transcript: TranscriptEntry[] = [{ role: "user", entryId, content: summary }];
    // The summary stands for what it replaced, so it takes the last replaced seq (seqs stay ordered).
    const seqs: number[] = [keepFrom > 0 ? (s.transcriptSeqs[keepFrom - 1] ?? 0) : 0];
    // A summary of untrusted text may carry it on: it counts as untrusted then (conservatively, whole).
    let fromUntrusted = false;
    const kept: { [entryId: string]: EntryProvenance } = {};
    for (let i = 0; i < s.transcript.length; i++) {
      const entry = s.transcript[i] as TranscriptEntry;
      if (i >= keepFrom && entry.role === "assistant") for (const call of entry.toolCalls) asked.add(call.callId);
      if (i < keepFrom || (entry.role === "tool" && !asked.has(entry.callId))) {
        if (holdsUntrusted(provenanceAt(s, i))) fromUntrusted = true;
        continue;
      }
      transcript.push(entry);
      seqs.push(s.transcriptSeqs[i] ?? 0);
      const own = entry.role === "user" ? s.inputProvenance?.[entry.entryId] : undefined;
      if (own !== undefined && entry.role === "user") kept[entry.entryId] = own;
    }
    kept[entryId] = summaryProvenance(summary, fromUntrusted);
    s.transcript = transcript;
    s.transcriptSeqs = seqs;
    s.inputProvenance = kept;
  }
}

/** Fold events onto a snapshot state (or from scratch). Pure: `from` is never modified. */
export function fold(events: Iterable<TaskEvent>, from: TaskState = EMPTY_STATE): TaskState {
  return new Folder(from).applyAll(events).state;
}

/** A JSON form of the state for a snapshot. */
export function stateToJson(state: TaskState): JsonValue {
  return state as unknown as JsonValue;
}

/** The state stored in a snapshot, or undefined when its version is not this code's. */
export function stateFromJson(v: number, json: JsonValue): TaskState | undefined {
  if (v !== TASK_STATE_VERSION || json === null || typeof json !== "object" || Array.isArray(json)) return undefined;
  return json as unknown as TaskState;
}
