/**
 * The options of the `sema eval` subcommands, in a module of their own so the dispatcher checks
 * them all without loading any subcommand (each is loaded only when it runs).
 */
import { STORE_OPTIONS } from "../context.ts";

/** The options of `sema eval run`. */
export const EVAL_RUN_OPTIONS = {
  ...STORE_OPTIONS,
  model: { type: "string" },
  scorer: { type: "string", multiple: true },
  concurrency: { type: "string" },
  name: { type: "string" },
  gate: { type: "string", multiple: true },
  resume: { type: "string" },
  yes: { type: "boolean" },
  json: { type: "boolean" },
} as const;

/** The options of `sema eval dataset`. */
export const EVAL_DATASET_OPTIONS = {
  ...STORE_OPTIONS,
  "from-task": { type: "string", multiple: true },
  version: { type: "string" },
  json: { type: "boolean" },
} as const;

/** The options of `sema eval injection`. */
export const EVAL_INJECTION_OPTIONS = {
  model: { type: "string" },
  suite: { type: "string", multiple: true },
} as const;

/** `sema eval compare`, `show` and `list`. */
export const EVAL_RESULTS_OPTIONS = { ...STORE_OPTIONS, json: { type: "boolean" } } as const;

/** Every option of every subcommand. */
export const EVAL_OPTIONS = {
  ...EVAL_RUN_OPTIONS,
  ...EVAL_DATASET_OPTIONS,
  ...EVAL_INJECTION_OPTIONS,
} as const;
