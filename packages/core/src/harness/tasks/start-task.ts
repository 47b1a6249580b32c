/**
 * `startTask`: create a task — `task_created`, then its objective as a received input — in one
 * conditional append. Nothing here stays alive between calls.
 */
import { buildHumanInputEvent } from "../../core/human-input-projection.ts";
import type { Store } from "../../ports/store.ts";
import type { ContentPart } from "../../protocol/content.ts";
import { InvalidInputError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { ActorAssertion } from "../../protocol/transcript.ts";
import { type ContentOptions, ingestContent } from "./content-ingress.ts";

export interface StartTaskInput {
  /**
   * The task's objective: text, recorded as `sanitizeHumanText` leaves it on the user lane, or
   * content parts (text, images, files), whose bytes go to the store's blob table and whose text
   * parts are joined into the recorded objective (design §5 "Images and files").
   */
  objective: string | readonly ContentPart[];
  /** Limits on the objective's image and file parts, and whether URL parts are fetched. */
  content?: ContentOptions;
  /** Whose authority the task runs on. Default `"local"` (a single-user host). */
  principal?: string;
  /** Who typed the objective; absent for a single-user host (the bytes stay unlabelled). */
  actor?: ActorAssertion;
  /** The agent's name, and the model id to record (resume uses it). */
  agent?: string;
  model?: string;
  taskId?: string;
  parentTaskId?: string;
  metadata?: { [key: string]: JsonValue };
}

/** Create a task: `task_created`, then its objective as a received input. Returns the task id. */
export async function startTask(store: Store, input: StartTaskInput): Promise<string> {
  if (typeof input.objective !== "string" && !Array.isArray(input.objective))
    throw new InvalidInputError("the objective must be a string or an array of content parts");
  const principal = input.principal ?? "local";
  const { text, attachments } = await ingestContent(store, input.objective, "user", input.content);
  const created: Extract<TaskEvent, { type: "task_created" }> = {
    type: "task_created",
    v: 1,
    objective: text,
    principal,
  };
  if (input.agent !== undefined) created.agent = input.agent;
  if (input.model !== undefined) created.model = input.model;
  if (input.parentTaskId !== undefined) created.parentTaskId = input.parentTaskId;
  if (input.actor !== undefined) created.actor = input.actor;
  if (input.metadata !== undefined) created.metadata = input.metadata;
  const objective = buildHumanInputEvent({
    carrier: "objective",
    source: "user",
    delivery: "received",
    sessionSeq: 0,
    text,
    principal,
    ...(attachments === undefined ? {} : { attachments }),
    ...(input.actor === undefined
      ? {}
      : { actor: input.actor, ...(input.actor.issuer === undefined ? {} : { issuer: input.actor.issuer }) }),
  });
  const [first] = await store.createTask({
    ...(input.taskId === undefined ? {} : { taskId: input.taskId }),
    created,
    more: [objective],
  });
  return first?.taskId ?? "";
}
