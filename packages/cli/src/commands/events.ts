/**
 * `sema events <taskId> [--json] [--follow] [--db path]`: the task's log; `--json` prints each
 * event exactly as stored. A tool that threw shows its error's class, and its stack below.
 */
import { parseArgs } from "node:util";
import type { StoredEvent } from "@sema-agent/core";
import { type CliIo, openStore, STORE_OPTIONS, UsageError } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

function describe(event: StoredEvent): string {
  switch (event.type) {
    case "human_input":
      return `${event.delivery} ${event.carrier} from ${event.source}${event.text === undefined ? "" : `: ${event.text}`}`;
    case "user_message":
      return event.content;
    case "model_turn":
      return `${event.text}${event.toolCalls.length > 0 ? ` [${event.toolCalls.map((c) => c.name).join(", ")}]` : ""}`;
    case "tool_call_started":
      return `${event.name} (${event.callId}, attempt ${event.attempt})`;
    case "tool_result":
      return `${event.name} ${event.status}: ${event.content}${event.error === undefined ? "" : ` [${event.error.name}]`}`;
    case "leg_started":
      return `${event.legId} (${event.trigger})`;
    case "leg_ended":
      return `${event.legId}: ${event.reason}`;
    case "task_created":
      return event.objective;
    case "task_completed":
      return event.result;
    case "task_failed":
      return event.error.message;
    case "engine_note":
      return `${event.kind}: ${event.text}`;
    default:
      return "";
  }
}

const TERMINAL = new Set(["task_completed", "task_failed", "task_cancelled"]);

export async function events(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, json: { type: "boolean" }, follow: { type: "boolean" } },
    allowPositionals: true,
  });
  const [taskId] = positionals;
  if (taskId === undefined) throw new UsageError("usage: sema events <taskId> [--json] [--follow]");
  const store = await openStore(io, values);
  const print = (event: StoredEvent) => {
    if (values.json === true) {
      io.stdout.write(`${jsonLine(event)}\n`);
      return;
    }
    io.stdout.write(
      `${terminalSafe(`${String(event.seq).padStart(5)} ${event.at} ${event.type.padEnd(17)} ${describe(event).replace(/\n/g, "⏎")}`)}\n`,
    );
    // What a tool threw: its stack under the line, for the developer (the model saw the message).
    if (event.type === "tool_result" && event.error?.stack !== undefined)
      for (const line of event.error.stack.split("\n"))
        io.stdout.write(`${terminalSafe(`        ${line.trimEnd()}`)}\n`);
  };
  try {
    if (values.follow !== true) {
      for (const event of await store.read(taskId)) print(event);
      return 0;
    }
    const controller = new AbortController();
    io.interrupt?.addEventListener("abort", () => controller.abort(), { once: true });
    for await (const event of store.watch(taskId, { signal: controller.signal })) {
      print(event);
      if (TERMINAL.has(event.type)) break;
    }
    return 0;
  } finally {
    await store.close();
  }
}
