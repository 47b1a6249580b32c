/**
 * `startTask`: create a task — `task_created`, then its objective as a received input — in one
 * conditional append. Nothing here stays alive between calls.
 */

import { z } from "zod";
import { buildHumanInputEvent } from "../../core/human-input-projection.ts";
import { sanitizeHumanText } from "../../core/human-text.ts";
import type { Store } from "../../ports/store.ts";
import { checkInput } from "../../protocol/config-check.ts";
import { InvalidInputError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import { actorSchema, isJsonValue, type TaskEvent } from "../../protocol/task-event.ts";
import type { ActorAssertion } from "../../protocol/transcript.ts";
import type { Equal, ShapeOf } from "../config/agent-schema.ts";

export interface StartTaskInput {
  /** The task's objective; recorded as `sanitizeHumanText` leaves it on the user lane. */
  objective: string;
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

/** One line per `StartTaskInput` field: the compile fails while the two disagree on keys. */
const startShape = {
  objective: z.string(),
  principal: z.string().min(1).optional(),
  actor: actorSchema.optional(),
  agent: z.string().optional(),
  model: z.string().optional(),
  taskId: z.string().min(1).optional(),
  parentTaskId: z.string().min(1).optional(),
  metadata: z.record(z.string(), z.custom<JsonValue>(isJsonValue, { error: "must be JSON" })).optional(),
} satisfies ShapeOf<StartTaskInput>;
const startKeysMatch: Equal<keyof typeof startShape, keyof StartTaskInput> = true;
void startKeysMatch;

const startSchema = z.strictObject(startShape);

/**
 * Create a task: `task_created`, then its objective as a received input. Returns the task id.
 * Malformed input (an unknown key, named; a wrong type) is an `InvalidInputError` before anything
 * is written.
 */
export async function startTask(store: Store, input: StartTaskInput): Promise<string> {
  if (typeof input !== "object" || input === null || typeof input.objective !== "string")
    throw new InvalidInputError("the objective must be a string");
  checkInput(startSchema, input, "startTask");
  const principal = input.principal ?? "local";
  const text = sanitizeHumanText(input.objective, "user");
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
