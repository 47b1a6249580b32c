/**
 * `--model script:<path.json>`: a run reproduced offline on `ScriptedModel`. Turn i is the answer
 * when the transcript already holds i−1 assistant turns, so the model is stateless and a resumed
 * task continues the script where it left off; a script that runs out fails the task clearly.
 */
import { readFileSync } from "node:fs";
import type { JsonValue } from "@sema-agent/core";
import { InvalidInputError } from "@sema-agent/core/protocol";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { z } from "zod";

const json: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(json), z.record(z.string(), json)]),
);

export const scriptFileSchema = z.strictObject({
  turns: z.array(
    z.strictObject({
      text: z.string().exactOptional(),
      reasoning: z.string().exactOptional(),
      toolCalls: z.array(z.strictObject({ name: z.string().min(1), input: json })).exactOptional(),
      delayMs: z.number().int().nonnegative().exactOptional(),
      chunkSize: z.number().int().positive().exactOptional(),
      deltaDelayMs: z.number().int().nonnegative().exactOptional(),
    }),
  ),
});

export type ScriptFile = z.infer<typeof scriptFileSchema>;

/** The scripted model for a parsed script file. */
export function scriptedModelOf(script: ScriptFile, id: string): ScriptedModel {
  return new ScriptedModel(script.turns as ScriptedTurn[], { id, mode: "by-transcript" });
}

/** Read and check a script file; a bad file is one clear error naming the failing path. */
export function loadScript(path: string): ScriptedModel {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new InvalidInputError(
      `cannot read script ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const parsed = scriptFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(`script ${path}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
  }
  return scriptedModelOf(parsed.data, `script:${path}`);
}
