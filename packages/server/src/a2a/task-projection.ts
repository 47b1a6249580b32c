/**
 * A Sema task's log, read as an A2A task: one pass over the stored events gives both the stream
 * (each event maps to at most a few `StreamResponse`s, a pure function of the log, so a replay
 * sends exactly what the live stream sent) and the `Task` snapshot `GetTask` returns.
 *
 * The mapping (docs/guide/a2a.md has it as a table):
 * - `task_created` → the `Task` (submitted); each input (the objective's first) → a user message of
 *   the history, with its lane and actor in the metadata;
 * - `leg_started` → working; a decided approval with none left open → working;
 * - a model turn's text → an artifact (`turn-<seq>`) with the turn's usage in its metadata;
 * - `tool_call_started` / `tool_result` → working status updates with a DataPart;
 * - a leg parked on approvals → input-required, one DataPart `{ callId, toolName, input, digest,
 *   provenance? }` per open approval; parked for input, an interrupt or a budget →
 *   input-required with text;
 * - `task_forked` that parks the copy (a fork or an import cut inside a leg or before any) →
 *   input-required with text, or with the approvals the copy left open;
 * - `task_completed` / `task_failed` / `task_cancelled` → completed / failed / canceled.
 */
import { Role, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import type { JsonValue, StoredEvent, Usage } from "@sema-agent/core";
import { artifact, dataPart, META, message, status, stream, textPart } from "./wire.ts";

/** An approval waiting for a decision, as an `input-required` status carries it. */
export interface PendingApproval {
  callId: string;
  toolName: string;
  input: JsonValue;
  digest: string;
  /** Why the provenance policy held the call, when it did: the untrusted spans it rests on. */
  provenance?: JsonValue;
}

const TERMINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED]);
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

/** A state after which a stream of the task ends (A2A: terminal and interrupted states). */
export function endsStream(state: TaskState): boolean {
  return TERMINAL.has(state) || INTERRUPTED.has(state);
}

/** Whether the state is terminal: nothing more happens to the task. */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL.has(state);
}

function parsed(inputJson: string): JsonValue {
  try {
    return JSON.parse(inputJson) as JsonValue;
  } catch {
    return inputJson;
  }
}

/** What a fork (or an import) that waits to be run on says: it never starts by itself. */
const FORKED_TEXT = "A copy of another task, stopped where it was copied: send a message to run it on.";

const PARK_TEXT: Record<string, string> = {
  "parked:input": "The agent waits for your input.",
  "parked:interrupt": "Interrupted: send a message to continue.",
  "parked:budget": "The task's budget is spent: raise it to continue.",
  "parked:quota": "A quota of your principal is used up: the task resumes when its window allows.",
};

export class TaskProjection {
  readonly taskId: string;
  contextId = "";
  state: TaskState = TaskState.TASK_STATE_SUBMITTED;
  /** The seq of the last event applied. */
  seq = 0;
  #status = status(TaskState.TASK_STATE_SUBMITTED, "");
  readonly #artifacts: Task["artifacts"] = [];
  readonly #history: Task["history"] = [];
  readonly #pending = new Map<string, PendingApproval>();
  #usage: Usage | undefined;
  #agent: string | undefined;
  #firstMessageId: string | undefined;
  readonly #callInputs = new Map<string, JsonValue>();
  /** Whether a leg is open (started, not ended), and how the last one ended. */
  #legOpen = false;
  #lastEnd: string | undefined;

  constructor(taskId: string) {
    this.taskId = taskId;
  }

  /** Approvals requested and not yet decided. */
  pendingApprovals(): PendingApproval[] {
    return [...this.#pending.values()];
  }

  /** Apply one stored event (in seq order); returns what a stream sends for it. */
  apply(event: StoredEvent): StreamResponse[] {
    this.seq = event.seq;
    const at = event.at;
    switch (event.type) {
      case "task_created": {
        const meta = event.metadata ?? {};
        const contextId = meta[META.contextId];
        const messageId = meta[META.messageId];
        this.contextId = typeof contextId === "string" ? contextId : event.taskId;
        this.#agent = event.agent;
        // The objective's own input (the next event) carries the client's messageId.
        this.#firstMessageId = typeof messageId === "string" && messageId !== "" ? messageId : undefined;
        this.#status = status(TaskState.TASK_STATE_SUBMITTED, at);
        return [stream.task(this.snapshot())];
      }
      case "leg_started":
        this.#legOpen = true;
        this.#lastEnd = undefined;
        return this.#to(TaskState.TASK_STATE_WORKING, at);
      case "human_input": {
        if (event.delivery !== "received" && event.delivery !== "parked") return [];
        const messageId = this.#firstMessageId ?? `${this.taskId}-input-${event.inputId}`;
        this.#firstMessageId = undefined;
        this.#history.push(
          message(
            {
              messageId,
              taskId: this.taskId,
              contextId: this.contextId,
              role: Role.ROLE_USER,
              parts: [textPart(event.text ?? "")],
            },
            { [META.lane]: event.source, ...(event.actor === undefined ? {} : { [META.actor]: event.actor.id }) },
          ),
        );
        return [];
      }
      case "model_turn": {
        this.#usage = add(this.#usage, event.usage);
        for (const call of event.toolCalls) this.#callInputs.set(call.callId, call.input);
        if (event.text === "") return [];
        const turn = artifact(`turn-${event.seq}`, "assistant", [textPart(event.text)], {
          [META.usage]: { ...event.usage },
        });
        this.#artifacts.push(turn);
        this.#history.push(
          message({
            messageId: `${this.taskId}-turn-${event.seq}`,
            taskId: this.taskId,
            contextId: this.contextId,
            parts: [textPart(event.text)],
          }),
        );
        return [stream.artifact(this.taskId, this.contextId, turn)];
      }
      case "tool_call_started": {
        // The input it runs with: a hook's replacement if any, else the model's.
        const input = event.input ?? this.#callInputs.get(event.callId);
        return this.#working(at, `${this.taskId}-call-${event.seq}`, {
          kind: "tool_call",
          callId: event.callId,
          toolName: event.name,
          attempt: event.attempt,
          ...(input === undefined ? {} : { input }),
        });
      }
      case "tool_result":
        return this.#working(at, `${this.taskId}-result-${event.seq}`, {
          kind: "tool_result",
          callId: event.callId,
          toolName: event.name,
          status: event.status,
          content: event.content,
        });
      case "approval_requested":
        this.#pending.set(event.callId, {
          callId: event.callId,
          toolName: event.name,
          input: parsed(event.inputJson),
          digest: event.digest,
          ...(event.provenance === undefined ? {} : { provenance: event.provenance as unknown as JsonValue }),
        });
        return [];
      case "approval_decided":
        this.#pending.delete(event.callId);
        return this.#pending.size === 0 && this.state === TaskState.TASK_STATE_INPUT_REQUIRED
          ? this.#to(TaskState.TASK_STATE_WORKING, at)
          : [];
      case "leg_ended": {
        this.#legOpen = false;
        this.#lastEnd = event.reason;
        if (event.reason === "parked:approval") return this.#approvalRequired(at);
        const text = PARK_TEXT[event.reason];
        return text === undefined ? [] : this.#to(TaskState.TASK_STATE_INPUT_REQUIRED, at, [textPart(text)]);
      }
      case "task_forked": {
        // The copy's open leg is closed, a copy made before any leg never starts by itself, and
        // one that waited for children now detached waits no more: each is parked (forked, or on
        // its open approvals) until an input or a resume runs it on. Any other copy is as it was.
        const parks =
          this.#legOpen ||
          this.state === TaskState.TASK_STATE_SUBMITTED ||
          (this.#lastEnd === "parked:child" && event.detachedChildren !== undefined);
        this.#legOpen = false;
        if (!parks || isTerminalState(this.state)) return [];
        if (this.#pending.size > 0) return this.#approvalRequired(at);
        return this.#to(TaskState.TASK_STATE_INPUT_REQUIRED, at, [textPart(FORKED_TEXT)]);
      }
      case "task_completed":
        return this.#to(TaskState.TASK_STATE_COMPLETED, at, [textPart(event.result)]);
      case "task_failed":
        return this.#to(TaskState.TASK_STATE_FAILED, at, [textPart(event.error.message)], {
          [META.error]: event.error.code,
        });
      case "task_cancelled":
        return this.#to(TaskState.TASK_STATE_CANCELED, at, event.reason === undefined ? [] : [textPart(event.reason)]);
      default:
        return [];
    }
  }

  /** Input-required with one DataPart per open approval. */
  #approvalRequired(at: string): StreamResponse[] {
    const parts = [
      textPart("Approval required: answer with a DataPart { callId, decision, digest, reason? }."),
      ...this.pendingApprovals().map((approval) => dataPart({ ...approval })),
    ];
    return this.#to(TaskState.TASK_STATE_INPUT_REQUIRED, at, parts);
  }

  #working(at: string, messageId: string, data: Record<string, unknown>): StreamResponse[] {
    this.state = TaskState.TASK_STATE_WORKING;
    const statusMessage = message({
      messageId,
      taskId: this.taskId,
      contextId: this.contextId,
      parts: [dataPart(data)],
    });
    this.#status = status(TaskState.TASK_STATE_WORKING, at, statusMessage);
    return [stream.status(this.taskId, this.contextId, this.#status)];
  }

  #to(
    state: TaskState,
    at: string,
    parts: ReturnType<typeof textPart>[] = [],
    extra: Record<string, unknown> = {},
  ): StreamResponse[] {
    if (state === this.state && parts.length === 0) return [];
    this.state = state;
    const statusMessage =
      parts.length === 0
        ? undefined
        : message({
            messageId: `${this.taskId}-status-${this.seq}`,
            taskId: this.taskId,
            contextId: this.contextId,
            parts,
          });
    this.#status = status(state, at, statusMessage);
    const metadata = { ...extra, ...(this.#usage === undefined ? {} : { [META.usage]: { ...this.#usage } }) };
    return [stream.status(this.taskId, this.contextId, this.#status, metadata)];
  }

  /** The task as `GetTask` returns it; `historyLength` as A2A defines it (0: none, N: the last N). */
  snapshot(historyLength?: number, includeArtifacts = true): Task {
    const history =
      historyLength === undefined ? [...this.#history] : historyLength <= 0 ? [] : this.#history.slice(-historyLength);
    return {
      id: this.taskId,
      contextId: this.contextId,
      status: this.#status,
      artifacts: includeArtifacts ? [...this.#artifacts] : [],
      history,
      metadata: {
        ...(this.#agent === undefined ? {} : { [META.agent]: this.#agent }),
        ...(this.#usage === undefined ? {} : { [META.usage]: { ...this.#usage } }),
      },
    };
  }
}

function add(total: Usage | undefined, usage: Usage): Usage {
  if (total === undefined) return { ...usage };
  return {
    ...total,
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
  };
}

/** The projection of a whole log. */
export function project(taskId: string, events: readonly StoredEvent[]): TaskProjection {
  const projection = new TaskProjection(taskId);
  for (const event of events) projection.apply(event);
  return projection;
}
