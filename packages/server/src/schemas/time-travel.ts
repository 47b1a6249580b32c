/**
 * Request and response bodies of the time-travel routes: fork, forks, replay, diff, export,
 * import (docs/guide/time-travel.md). The responses are core's own results (`ForkResult`,
 * `ReplayReport`, `TaskDiff`, `ImportResult`), sent as they are; the check at the bottom makes
 * the compile fail while one of them has a field these schemas do not document.
 */
import { modelSettingsSchema } from "@sema-agent/core/protocol";
import type { ForkResult, ImportResult, ReplayReport, TaskDiff } from "@sema-agent/core/time-travel";
import { z } from "zod";
import { idSchema, Usage } from "./common.ts";
import { named } from "./registry.ts";

const seq = z.number().int().positive();

export const ForkRequest = named(
  "ForkRequest",
  z.strictObject({
    atSeq: seq
      .optional()
      .describe(
        "The last seq of the source to copy; the copy ends at the last step boundary at or before it (then `requestedSeq` says so). Default: the whole log.",
      ),
    edits: z
      .strictObject({
        input: z
          .strictObject({
            seq: seq.describe("The seq of the replaced input's first record (its `human_input`, received or parked)."),
            text: z.string().min(1).describe("Sent in its place, on its lane and carrier, as the caller's input."),
          })
          .optional()
          .describe(
            "Replace a person's input. The fork is cut before it; the new text is attributed to the caller. An input on the supervisor lane needs the supervisor role; one on the operator lane is refused (403).",
          ),
        toolResult: z
          .strictObject({
            callId: idSchema,
            content: z.string().describe("What the model receives as the call's result. The tool is not run."),
            status: z.enum(["ok", "error"]).optional().describe("Default `ok`."),
          })
          .optional()
          .describe("Replace one tool call's recorded result: the fork is cut just before it."),
        settings: modelSettingsSchema
          .optional()
          .describe(
            "Model settings laid over the task's own, key by key. Checked as at task creation: a provider option is refused (400) unless the agent's callerProviderOptions lists its key.",
          ),
        model: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe(
            "The model the fork runs on. A served task runs on its agent's model, so only that model's id is accepted (anything else is a 400): the edit can never make a task run on a model the operator did not configure.",
          ),
      })
      .optional()
      .describe("What the fork changes at its fork point: an input or a tool result (not both), settings, model."),
  }),
);

export const ForkResponse = named(
  "ForkResponse",
  z.object({
    taskId: z.string().describe("The fork: the caller's, parked until an input or a resume runs it on."),
    sourceTaskId: z.string(),
    seq: z.number().int().describe("The last seq of the source copied into the fork."),
    requestedSeq: z.number().int().optional().describe("The seq asked for, when it was not a step boundary."),
    detachedChildren: z
      .array(z.string())
      .describe("Children still running at the cut: their results go to the source, not the fork."),
  }),
);

const ReplayTurn = named(
  "ReplayTurn",
  z.object({
    turn: z.number().int().describe("1-based, among the turns replayed."),
    seq: z.number().int().describe("The recorded `model_turn`'s seq."),
    verdict: z
      .enum(["identical", "unverified", "different"])
      .describe("`unverified`: the turn was recorded without request digests (`model_turn` v 1)."),
  }),
);

export const ReplayReportBody = named(
  "ReplayReport",
  z.object({
    taskId: z.string(),
    outcome: z
      .enum(["identical", "unverified", "diverged"])
      .describe(
        "`identical`: every request matched its recorded digest; `unverified`: no difference, but some turns had no digest; `diverged`: see `divergence`.",
      ),
    recordedTurns: z.number().int().describe("The model turns the recording holds (a fork's own part only)."),
    turns: z.array(ReplayTurn),
    divergence: z
      .object({
        turn: z.number().int(),
        seq: z.number().int().optional(),
        parts: z.array(z.enum(["system", "tools", "settings", "transcript"])),
        diff: z.string().describe("What differs, readably: which part, which entry, which bytes."),
      })
      .optional()
      .describe("Where the replay first parted from the recording (the replay stops there)."),
  }),
);

const TrajectoryStep = named(
  "TrajectoryStep",
  z.object({
    seq: z.number().int(),
    kind: z.enum(["input", "model", "tool", "approval", "end"]),
    text: z.string().describe("One readable line."),
    usage: Usage.optional(),
    model: z.string().optional(),
    key: z.string().describe("What two steps are compared on (canonical JSON)."),
  }),
);

const DiffSide = named(
  "DiffSide",
  z.object({
    taskId: z.string(),
    steps: z.array(TrajectoryStep),
    usage: Usage,
    costUsd: z.number().optional().describe("At the server's quota prices, when every model the side used has one."),
  }),
);

export const TaskDiffBody = named(
  "TaskDiff",
  z.object({
    a: DiffSide,
    b: DiffSide,
    common: z.number().int().describe("How many steps the two share from the start."),
    firstDivergence: z
      .object({ a: TrajectoryStep.optional(), b: TrajectoryStep.optional() })
      .optional()
      .describe("The first steps that differ; absent when one trajectory is a prefix of the other."),
    identical: z.boolean(),
  }),
);

export const DiffParams = z.strictObject({ taskId: idSchema, otherTaskId: idSchema });

export const ExportQuery = z.strictObject({
  withChildren: z
    .enum(["true", "false"])
    .optional()
    .describe("Also export the task's child tasks, and theirs. Default false."),
});

export const ImportResponse = named(
  "ImportResponse",
  z.object({
    taskId: z.string().describe("The imported root task's new id (the caller's)."),
    sourceTaskId: z.string().describe("The root task's id in the file."),
    tasks: z
      .array(z.object({ from: z.string(), to: z.string() }))
      .describe("Every task of the file: its id there, and the id minted for it here."),
    events: z.number().int(),
    blobs: z.number().int(),
  }),
);

// Each core result is what its route sends, so it must fit the documented body, and have no
// top-level field the body does not document (the compile fails here until it is).
type Documents<Body, Result extends Body> = [keyof Result] extends [keyof Body] ? true : never;
const documented: [
  Documents<z.infer<typeof ForkResponse>, ForkResult>,
  Documents<z.infer<typeof ReplayReportBody>, ReplayReport>,
  Documents<z.infer<typeof TaskDiffBody>, TaskDiff>,
  Documents<z.infer<typeof ImportResponse>, ImportResult>,
] = [true, true, true, true];
void documented;
