/**
 * Building blocks of A2A v1.0 wire objects (the SDK's protobuf-shaped types, whose fields are all
 * present), so the rest of the binding writes `textPart("…")`, not ten fields by hand.
 */
import {
  type Artifact,
  type Message,
  type Part,
  Role,
  type StreamResponse,
  type Task,
  type TaskState,
  type TaskStatus,
} from "@a2a-js/sdk";

/** Keys Sema adds to A2A `metadata` objects, namespaced so they cannot meet a client's own. */
export const META = {
  contextId: "sema/contextId",
  messageId: "sema/messageId",
  agent: "sema/agent",
  usage: "sema/usage",
  actor: "sema/actor",
  lane: "sema/lane",
  seq: "sema/seq",
  error: "sema/error",
} as const;

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** A data part (structured JSON). */
export function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/** A message of the agent (or, with `role`, of the user) in a task. */
export function message(
  fields: { messageId: string; taskId: string; contextId: string; parts: Part[]; role?: Role },
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: fields.messageId,
    contextId: fields.contextId,
    taskId: fields.taskId,
    role: fields.role ?? Role.ROLE_AGENT,
    parts: fields.parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A status at `timestamp`, with its optional message. */
export function status(state: TaskState, timestamp: string, statusMessage?: Message): TaskStatus {
  return { state, message: statusMessage, timestamp };
}

/** An artifact of text parts. */
export function artifact(
  artifactId: string,
  name: string,
  parts: Part[],
  metadata?: Record<string, unknown>,
): Artifact {
  return { artifactId, name, description: "", parts, metadata, extensions: [] };
}

/** Stream responses, one per payload case. */
export const stream = {
  task: (value: Task): StreamResponse => ({ payload: { $case: "task", value } }),
  status: (
    taskId: string,
    contextId: string,
    value: TaskStatus,
    metadata?: Record<string, unknown>,
  ): StreamResponse => ({
    payload: { $case: "statusUpdate", value: { taskId, contextId, status: value, metadata } },
  }),
  artifact: (taskId: string, contextId: string, value: Artifact): StreamResponse => ({
    payload: {
      $case: "artifactUpdate",
      value: { taskId, contextId, artifact: value, append: false, lastChunk: true, metadata: undefined },
    },
  }),
};
