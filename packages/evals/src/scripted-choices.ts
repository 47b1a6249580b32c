/** The scripted models as the suite's model choices, and a real model as one. */
import type { Model } from "@sema-agent/core";
import type { ModelChoice } from "./run-suite.ts";
import { type ScriptedKind, scriptedModel } from "./scripted-models.ts";

/** A scripted model as a model choice: a fresh instance playing each task's plan. */
export function scriptedChoice(kind: ScriptedKind): ModelChoice {
  return { name: kind, forTask: (task) => scriptedModel(kind, task) };
}

/** The two scripted models: obedient (the worst case) and task-following (the utility baseline). */
export const SCRIPTED_MODELS: readonly ModelChoice[] = [scriptedChoice("obedient"), scriptedChoice("task-following")];

/** A real model (any provider) as a model choice: the same model for every task. */
export function modelChoice(model: Model): ModelChoice {
  return { name: model.id, forTask: () => model };
}
