/**
 * `startTask`: create a task — `task_created`, then its objective as a received input — in one
 * conditional append. Nothing here stays alive between calls.
 */

import { z } from "zod";
import { buildHumanInputEvent } from "../../core/human-input-projection.ts";
import type { Store } from "../../ports/store.ts";
import { checkedLater, checkInput, isPlainWithKeys } from "../../protocol/config-check.ts";
import type { SchemaMatches, ShapeOf } from "../../protocol/config-shape.ts";
import type { ContentPart } from "../../protocol/content.ts";
import { ConfigError, InvalidInputError } from "../../protocol/errors.ts";
import { isJsonValue, type JsonValue } from "../../protocol/json.ts";
import { MODEL_SETTING_KEYS, type ModelSettings, modelSettingsSchema } from "../../protocol/model-settings.ts";
import {
  actorSchema,
  type ExternalTool,
  type TaskEvent,
  type TaskSettings,
  taskSettingsSchema,
} from "../../protocol/task-event.ts";
import { type TraceContext, traceContextSchema } from "../../protocol/trace-context.ts";
import type { ActorAssertion } from "../../protocol/transcript.ts";
import type { OutputSchema } from "../agent.ts";
import { reservedIdProblem } from "../delegation/child-id.ts";
import { outputJsonSchema, unusableJsonSchema } from "../model/structured-output.ts";
import { type ContentOptions, ingestContent } from "./content-ingress.ts";
import { checkExternalTools } from "./external-tools.ts";

/**
 * A new task: its objective (text or content parts), whose authority it runs on, who asked, the
 * agent and model to record, optional ids and metadata, and model settings that win over the
 * agent's for this task: every key of `ModelSettings` (`temperature`, `maxOutputTokens`,
 * `toolChoice` …), recorded on `task_created` (v 2) so any process that runs a leg of the task
 * sends the same request.
 */
export interface StartTaskInput extends ModelSettings {
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
  /**
   * The input id the objective is recorded under (default: a fresh one). A front end whose
   * messages carry their own ids gives the first one's, so a retried first request finds it
   * (`Store.findInput`) instead of recording the message twice.
   */
  objectiveInputId?: string;
  parentTaskId?: string;
  metadata?: { [key: string]: JsonValue };
  /**
   * External tools offered from the first model call (`external_tools`, recorded with the task):
   * the leg parks on a call to one until its result is recorded (`submitToolResult`).
   */
  externalTools?: readonly ExternalTool[];
  /**
   * This task's output schema instead of the agent's: its JSON Schema is recorded, the model is
   * asked for it, and the final answer is checked against it (rebuilt from the JSON Schema).
   */
  output?: OutputSchema;
  /**
   * Refuse the task (`QuotaExceeded`, nothing written) when its principal already has this many
   * active root tasks (created or running): the `concurrentTasks` quota. Needs a store with
   * `usage` (`ConfigError` otherwise); the store checks it atomically with the creation.
   */
  maxActiveTasks?: number;
  /**
   * The W3C trace context of the request that starts the task (`parseTraceContext`), recorded on
   * `task_created`: a trace of the task is then a child of the caller's span.
   */
  traceContext?: TraceContext;
}

/** The settings to record, validated; undefined when the input has none. */
function settingsOf(input: StartTaskInput): TaskSettings | undefined {
  const given: Record<string, unknown> = {};
  for (const key of MODEL_SETTING_KEYS) if (input[key] !== undefined) given[key] = input[key];
  if (input.output !== undefined) {
    try {
      given.output = outputJsonSchema(input.output);
    } catch (error) {
      throw new InvalidInputError(error instanceof Error ? error.message : String(error));
    }
  }
  if (Object.keys(given).length === 0) return undefined;
  const parsed = taskSettingsSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "settings"}: ${issue.message}`);
    throw new InvalidInputError(`invalid task settings: ${problems.join("; ")}`);
  }
  // Refused now rather than by the leg that would check the answer.
  const unusable = parsed.data.output === undefined ? undefined : unusableJsonSchema(parsed.data.output);
  if (unusable !== undefined) throw new InvalidInputError(unusable);
  return parsed.data;
}

/** One line per `StartTaskInput` field: the compile fails while the two disagree on keys. */
const startShape = {
  // Content parts are checked (and their bytes stored) by ingestContent.
  objective: z.union([z.string(), z.array(checkedLater<ContentPart>()).readonly()]),
  content: z
    .custom<ContentOptions>((value) => typeof value === "object" && value !== null, {
      error: "must be content options ({ maxPartBytes, maxInputBytes, maxParts, fetchUrls, fetch })",
    })
    .optional(),
  principal: z.string().min(1).optional(),
  actor: actorSchema.optional(),
  agent: z.string().optional(),
  model: z.string().optional(),
  taskId: z.string().min(1).optional(),
  objectiveInputId: z.string().min(1).max(200).optional(),
  parentTaskId: z.string().min(1).optional(),
  metadata: z.record(z.string(), z.custom<JsonValue>(isJsonValue, { error: "must be JSON" })).optional(),
  // The model settings, each by its own schema (settingsOf checks them again, with `output`).
  ...modelSettingsSchema.shape,
  // Checked by checkExternalTools, with each tool's own schema.
  externalTools: z.array(checkedLater<ExternalTool>()).readonly().optional(),
  output: z
    .custom<OutputSchema>((value) => typeof value === "object" && value !== null, {
      error: "must be a Standard Schema (zod …) or a JSON Schema object",
    })
    .optional(),
  maxActiveTasks: z.number().int().positive().optional(),
  traceContext: traceContextSchema.optional(),
} satisfies ShapeOf<StartTaskInput>;
const startKeysMatch: SchemaMatches<z.ZodObject<typeof startShape>, StartTaskInput> = true;
void startKeysMatch;

/** The strict schema of `startTask`'s input (exported for its tests). */
export const startSchema = z.strictObject(startShape);

/** The keys of the plain inputs most calls give, each a string (see `isPlainStartInput`). */
const PLAIN_KEYS: ReadonlySet<string> = new Set(["objective", "principal", "agent", "model", "taskId", "parentTaskId"]);
const NON_EMPTY: ReadonlySet<string> = new Set(["principal", "taskId", "parentTaskId"]);

/**
 * A fast yes for the input most calls give (an objective string, a principal, an agent or model
 * name, a task id): zod's check of the whole schema was 8% of a 1-turn task's CPU in a young
 * process. Says yes only to what `startSchema` accepts (property-tested); anything else goes to zod.
 */
export function isPlainStartInput(input: object): boolean {
  if (!isPlainWithKeys(input, PLAIN_KEYS) || typeof input.objective !== "string") return false;
  for (const key in input) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || (NON_EMPTY.has(key) && value.length === 0)) return false;
  }
  return true;
}

/**
 * Create a task: `task_created`, then its objective as a received input. Returns the task id.
 * Malformed input (an unknown key, named; a wrong type) is an `InvalidInputError` before anything
 * is written.
 */
export async function startTask(store: Store, input: StartTaskInput): Promise<string> {
  if (typeof input !== "object" || input === null)
    throw new InvalidInputError("startTask needs an input object with an objective");
  if (typeof input.objective !== "string" && !Array.isArray(input.objective))
    throw new InvalidInputError("the objective must be a string or an array of content parts");
  if (!isPlainStartInput(input)) checkInput(startSchema, input, "startTask");
  // A child's id is minted by the harness; a task created ahead under it would be taken for one.
  const reserved = input.taskId === undefined ? undefined : reservedIdProblem(input.taskId, input.parentTaskId);
  if (reserved !== undefined) throw new InvalidInputError(reserved);
  const principal = input.principal ?? "local";
  if (input.maxActiveTasks !== undefined && store.usage === undefined)
    throw new ConfigError("startTask", [
      { path: "maxActiveTasks", message: "needs a store that counts usage (Store.usage): memory, SQLite, PostgreSQL" },
    ]);
  const settings = settingsOf(input);
  const tools = input.externalTools === undefined ? [] : checkExternalTools(input.externalTools);
  // Last, once everything else is known good: it writes the parts' bytes to the blob table.
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
  if (input.traceContext !== undefined) created.traceContext = { ...input.traceContext };
  if (settings !== undefined) {
    // v 2: a reader that predates settings refuses the event rather than run without them.
    created.v = 2;
    created.settings = settings;
  }
  const objective = buildHumanInputEvent({
    ...(input.objectiveInputId === undefined ? {} : { inputId: input.objectiveInputId }),
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
    ...(input.maxActiveTasks === undefined ? {} : { maxActiveTasks: input.maxActiveTasks }),
    created,
    more: tools.length === 0 ? [objective] : [{ type: "external_tools", v: 1, tools }, objective],
  });
  return first?.taskId ?? "";
}
