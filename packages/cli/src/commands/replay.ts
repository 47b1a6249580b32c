/**
 * `sema replay <taskId> [--yes] [--json] [--db path | --store url]`: run a recorded task again
 * against a recording of its model and tools, with the agent `sema run` builds now, and say
 * whether every model request is the one recorded (`replayTask`, docs/guide/time-travel.md).
 * Nothing runs, nothing is written, no model is called: it needs no API key and no network.
 */
import { parseArgs } from "node:util";
import { loadTaskState, type Model } from "@sema-agent/core";
import { formatReplay, type ReplayReport, replayTask } from "@sema-agent/core/time-travel";
import { type CliIo, openStore, STORE_OPTIONS, storeLocation, UsageError } from "../context.ts";
import { DEFAULT_AGENT_NAME, defaultAgent } from "../default-agent.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";
import { localToolSetup } from "../tool-roots.ts";

const USAGE = "usage: sema replay <taskId> [--yes] [--json]";

/**
 * The agent's model in a replay. `replayTask` answers every call from the recorded turns, so this
 * one is never called; it stands in for the task's model so that a replay needs no API key (a
 * provider's model asks for one when it is made) and no script file (which may be gone, or on
 * another machine after an import).
 */
export function unusedModel(spec: string | undefined): Model {
  const id = spec ?? "replay:unused";
  return {
    id,
    async *stream() {
      yield {
        type: "error",
        failure: { code: "unknown", message: `model ${id} is not called in a replay`, isRetryable: false },
      };
    },
  };
}

/** What a person reads: the report, and what an unverified or diverged outcome means. */
export function replayText(report: ReplayReport): string {
  const lines = [formatReplay(report)];
  if (report.outcome === "unverified") {
    const unverified = report.turns.filter((turn) => turn.verdict === "unverified").length;
    lines.push(
      `${unverified} of ${report.turns.length} turns were recorded without a digest of their request (model_turn v 1), so they were not compared: no difference was found, but those turns are unverified`,
    );
  }
  if (report.outcome === "diverged")
    lines.push(
      "The replay uses the agent sema run builds now, with the flags given here: replay a task with the flags it ran with (--yes).",
    );
  return lines.join("\n");
}

/**
 * `sema replay`: see the module comment. Exit 0 when every request is the one recorded (or no
 * difference was found among the turns that could be compared: `unverified`, said in the text),
 * 1 when the replay diverged, 2 for a flag that does not fit.
 */
export async function replay(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, yes: { type: "boolean" }, json: { type: "boolean" } },
    allowPositionals: true,
  });
  const [taskId, ...extra] = positionals;
  if (taskId === undefined || extra.length > 0) throw new UsageError(USAGE);
  const location = storeLocation(io, values);
  const store = await openStore(io, values);
  try {
    await store.getTask(taskId); // TaskNotFound before anything else
    const state = await loadTaskState(store, taskId);
    if (state.agent !== undefined && state.agent !== DEFAULT_AGENT_NAME)
      io.stderr.write(
        `${terminalSafe(`sema: task ${taskId} was started for agent ${state.agent}; sema replay replays it with the default agent of sema run`)}\n`,
      );
    // The agent sema run and sema resume build for this task, its model never called.
    const agent = defaultAgent(unusedModel(state.model), io.cwd, {
      autoApprove: values.yes === true,
      tools: localToolSetup(io, location).options,
    });
    const report = await replayTask(store, taskId, { agent });
    io.stdout.write(`${values.json === true ? jsonLine(report) : terminalSafe(replayText(report))}\n`);
    return report.outcome === "diverged" ? 1 : 0;
  } finally {
    await store.close();
  }
}
