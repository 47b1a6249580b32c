/**
 * `sema fork <taskId> [--at <seq>] [--input <seq>=<text>] [--tool-result <callId>=<text>]
 * [--model provider:model-id] [--json] [--db path | --store url]`: a new task whose log is the
 * task's up to a step boundary, with the edits given (`forkTask`, docs/guide/time-travel.md). The
 * fork is parked; `sema resume` runs it on.
 */
import { parseArgs } from "node:util";
import { type ForkEdits, type ForkResult, forkTask } from "@sema-agent/core/time-travel";
import { type CliIo, openStore, STORE_OPTIONS, storeFlagText, UsageError } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

const USAGE =
  "usage: sema fork <taskId> [--at <seq>] [--input <seq>=<text>] [--tool-result <callId>=<text>] [--model provider:model-id] [--json]";

/** A seq as typed: a positive decimal integer, nothing else (`1e3`, `0x10`, `2.0` are refused). */
export function parseSeq(flag: string, value: string): number {
  const seq = /^[1-9][0-9]{0,14}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(seq)) throw new UsageError(`${flag} takes a seq (a positive integer), got ${value}`);
  return seq;
}

/** `<key>=<text>` split at its first `=`: the key must be non-empty, the text may hold more `=`. */
function keyAndText(flag: string, shape: string, value: string): [string, string] {
  const at = value.indexOf("=");
  if (at <= 0) throw new UsageError(`${flag} takes ${shape}, got ${value}`);
  return [value.slice(0, at), value.slice(at + 1)];
}

/** `--input <seq>=<text>`: the input at seq replaced by text, which may not be empty. */
export function parseInputEdit(value: string): NonNullable<ForkEdits["input"]> {
  const [seq, text] = keyAndText("--input", "<seq>=<text> (e.g. 7=Book the cheaper one)", value);
  if (text.trim() === "") throw new UsageError(`--input ${seq}=: the replacing text is empty`);
  return { seq: parseSeq("--input", seq), text };
}

/** `--tool-result <callId>=<text>`: the call's recorded result replaced by text (which may be empty). */
export function parseToolResultEdit(value: string): NonNullable<ForkEdits["toolResult"]> {
  const [callId, content] = keyAndText("--tool-result", "<callId>=<text> (e.g. call-1-1=Rain all week)", value);
  return { callId, content };
}

/** `--model provider:model-id`: its form only; the model is resolved when the fork runs. */
function parseModel(value: string): string {
  if (!/^[a-z][a-z0-9-]*:.+$/.test(value))
    throw new UsageError(`--model takes provider:model-id (e.g. anthropic:claude-sonnet-4-5), got ${value}`);
  return value;
}

/** What a person reads: the fork's id, where it was cut, the children left behind, how to run it on. */
export function forkText(fork: ForkResult, storeFlags: string): string {
  const lines = [`Task ${fork.taskId} forked from ${fork.sourceTaskId} at seq ${fork.seq}`];
  if (fork.requestedSeq !== undefined)
    lines.push(
      `  seq ${fork.requestedSeq} is inside a step: the fork ends at the step boundary before it, seq ${fork.seq}`,
    );
  if (fork.detachedChildren.length > 0)
    lines.push(`  children still running there stay with ${fork.sourceTaskId}: ${fork.detachedChildren.join(", ")}`);
  lines.push(`Run it on with: sema resume ${fork.taskId}${storeFlags}`);
  return lines.join("\n");
}

/** `sema fork`: see the module comment; exit 0 with the fork made, 2 for a flag or an edit that does not fit. */
export async function fork(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...STORE_OPTIONS,
      at: { type: "string" },
      input: { type: "string" },
      "tool-result": { type: "string" },
      model: { type: "string" },
      json: { type: "boolean" },
    },
    allowPositionals: true,
  });
  const [taskId, ...extra] = positionals;
  if (taskId === undefined || extra.length > 0) throw new UsageError(USAGE);
  // Every flag is checked before the store is opened.
  const edits: ForkEdits = {};
  if (values.input !== undefined) edits.input = parseInputEdit(values.input);
  if (values["tool-result"] !== undefined) edits.toolResult = parseToolResultEdit(values["tool-result"]);
  if (values.model !== undefined) edits.model = parseModel(values.model);
  const atSeq = values.at === undefined ? undefined : parseSeq("--at", values.at);
  const store = await openStore(io, values);
  try {
    const result = await forkTask(store, taskId, { edits, ...(atSeq === undefined ? {} : { atSeq }) });
    io.stdout.write(
      `${values.json === true ? jsonLine(result) : terminalSafe(forkText(result, storeFlagText(values)))}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
