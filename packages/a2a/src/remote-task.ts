/**
 * Following one remote A2A task to a state where the call can answer: the events of a stream
 * (`SendStreamingMessage` or `SubscribeToTask`) or a `GetTask` snapshot folded into what is known
 * of it, each new state recorded in the task's log before the wait goes on.
 */
import { type Artifact, type Message, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import { CHECKPOINT_TEXT_CHARS } from "./checkpoint.ts";
import { messageText } from "./parts-text.ts";

/** The A2A states after which a call answers: the task is over, or it waits for someone. */
const FINAL: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** A state's A2A wire name, lower-case and dashed (`input-required`). */
export function stateName(state: TaskState | undefined): string {
  if (state === undefined) return "unknown";
  const name = TaskState[state];
  if (name === undefined || !name.startsWith("TASK_STATE_")) return "unknown";
  return name.slice("TASK_STATE_".length).toLowerCase().replaceAll("_", "-");
}

/** What is known of the remote task so far. */
export class RemoteTask {
  remoteTaskId: string | undefined;
  contextId: string;
  state: TaskState | undefined;
  statusMessage: Message | undefined;
  /** An answer given as a message, without a task (an agent may do that for a quick reply). */
  directMessage: Message | undefined;
  readonly #artifacts = new Map<string, Artifact>();

  constructor(contextId: string, remoteTaskId?: string) {
    this.contextId = contextId;
    this.remoteTaskId = remoteTaskId;
  }

  get artifacts(): Artifact[] {
    return [...this.#artifacts.values()];
  }

  /** The call can answer now. */
  get final(): boolean {
    return this.directMessage !== undefined || (this.state !== undefined && FINAL.has(this.state));
  }

  /** Fold one streamed event (a task snapshot from `GetTask` comes as a `task` payload). */
  apply(event: StreamResponse): void {
    const payload = event.payload;
    switch (payload?.$case) {
      case "task":
        this.#task(payload.value);
        break;
      case "statusUpdate":
        this.remoteTaskId ??= payload.value.taskId;
        if (payload.value.status !== undefined) {
          this.state = payload.value.status.state;
          if (payload.value.status.message !== undefined) this.statusMessage = payload.value.status.message;
        }
        break;
      case "artifactUpdate": {
        const artifact = payload.value.artifact;
        if (artifact === undefined) break;
        const known = this.#artifacts.get(artifact.artifactId);
        this.#artifacts.set(
          artifact.artifactId,
          payload.value.append && known !== undefined
            ? { ...known, parts: [...known.parts, ...artifact.parts] }
            : artifact,
        );
        break;
      }
      case "message":
        this.directMessage = payload.value;
        break;
      default:
        break;
    }
  }

  #task(task: Task): void {
    this.remoteTaskId = task.id;
    if (task.contextId !== "") this.contextId = task.contextId;
    if (task.status !== undefined) {
      this.state = task.status.state;
      this.statusMessage = task.status.message ?? this.statusMessage;
    }
    this.#artifacts.clear();
    for (const artifact of task.artifacts) this.#artifacts.set(artifact.artifactId, artifact);
  }

  /** The status text, cut for a checkpoint. */
  shortText(): string | undefined {
    const text = messageText(this.statusMessage);
    if (text === "") return undefined;
    return text.length > CHECKPOINT_TEXT_CHARS ? `${text.slice(0, CHECKPOINT_TEXT_CHARS)}…` : text;
  }
}
