/**
 * A dataset made from recorded tasks (docs/guide/evals.md#from-recorded-tasks): each task gives a
 * case with its objective as `input`, the images and files it came with, the inputs people sent
 * it later as they arrived (lane, carrier, and how many model turns it had taken), and its final
 * answer as `expected` (JSON when the task asked for a structured answer). A task that did not
 * complete gives no `expected`: its case says what to ask, not what to get.
 */
import type { Store } from "@sema-agent/core";
import { InvalidInputError, type JsonValue, TaskNotFoundError } from "@sema-agent/core/protocol";
import type { CaseInput, DatasetCase } from "./dataset-case.ts";
import { checkCases, type Dataset } from "./parse-dataset.ts";

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** Options: whose tasks they must be. */
export interface DatasetFromTasksOptions {
  /** When given, a task of another principal is not found (`TaskNotFound`), as on every surface. */
  principal?: string;
}

/** The case one recorded task gives (see the module comment). */
export async function caseFromTask(
  store: Store,
  taskId: string,
  options: DatasetFromTasksOptions = {},
): Promise<DatasetCase> {
  const record = await store.getTask(taskId);
  if (options.principal !== undefined && record.principal !== options.principal) throw new TaskNotFoundError(taskId);
  const events = await store.read(taskId);
  const created = events[0];
  if (created?.type !== "task_created") throw new InvalidInputError(`task ${taskId} does not start with task_created`);
  const structured = created.v === 2 && created.settings?.output !== undefined;
  const out: DatasetCase = {
    id: `task-${taskId}`.slice(0, 128),
    input: created.objective,
    metadata: { fromTask: taskId },
  };
  const inputs: CaseInput[] = [];
  const seen = new Set<string>();
  let expected: string | undefined;
  for (const event of events) {
    if (event.type === "task_completed") expected = event.result;
    else if (event.type === "leg_started") expected = undefined;
    if (event.type !== "human_input" || seen.has(event.inputId)) continue;
    seen.add(event.inputId);
    if (event.carrier === "objective") {
      for (const part of event.attachments ?? []) {
        if (!("digest" in part)) continue;
        const bytes = await store.getBlob?.(part.digest);
        if (bytes === undefined) continue;
        const attachment: NonNullable<DatasetCase["attachments"]>[number] = {
          mediaType: part.mediaType,
          data: toBase64(bytes),
        };
        if (part.filename !== undefined) attachment.name = part.filename;
        out.attachments = [...(out.attachments ?? []), attachment];
      }
      continue;
    }
    if (event.delivery !== "received" && event.delivery !== "parked") continue;
    if (event.carrier !== "steer" && event.carrier !== "nextTurn") continue;
    if (event.source !== "user" && event.source !== "supervisor") continue;
    if (event.text === undefined || event.text === "") continue;
    inputs.push({ text: event.text, carrier: event.carrier, source: event.source, afterTurn: event.sessionSeq });
  }
  if (inputs.length > 0) out.inputs = inputs;
  if (record.summary.status === "completed" && expected !== undefined) {
    let value: JsonValue = expected;
    if (structured) {
      try {
        value = JSON.parse(expected) as JsonValue;
      } catch {
        value = expected;
      }
    }
    out.expected = value;
  }
  return out;
}

/** A dataset of one case per task, in the order given. */
export async function datasetFromTasks(
  store: Store,
  taskIds: readonly string[],
  options: DatasetFromTasksOptions = {},
): Promise<Dataset> {
  const cases: DatasetCase[] = [];
  for (const taskId of taskIds) cases.push(await caseFromTask(store, taskId, options));
  return checkCases(cases);
}
