/** `sema steer <taskId> "text" [--next] [--policy steer|queue|interrupt|reject] [--db path]`: talk to a task from anywhere. */
import { parseArgs } from "node:util";
import { type HumanInputPolicy, sendInput } from "@sema-agent/core";
import { type CliIo, openStore, STORE_OPTIONS, UsageError } from "../context.ts";

const POLICIES: readonly HumanInputPolicy[] = ["steer", "queue", "interrupt", "reject"];

export async function steer(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, next: { type: "boolean" }, policy: { type: "string" } },
    allowPositionals: true,
  });
  const [taskId, ...words] = positionals;
  const text = words.join(" ");
  if (taskId === undefined || text.trim() === "")
    throw new UsageError('usage: sema steer <taskId> "text" [--next] [--policy steer|queue|interrupt|reject]');
  const policy = values.policy;
  if (policy !== undefined && !POLICIES.includes(policy as HumanInputPolicy))
    throw new UsageError(`--policy must be one of ${POLICIES.join(", ")}`);
  const store = await openStore(io, values);
  try {
    const sent = await sendInput(store, taskId, {
      text,
      ...(values.next === true ? { carrier: "nextTurn" } : {}),
      ...(policy === undefined ? {} : { policy: policy as HumanInputPolicy }),
    });
    io.stdout.write(`input ${sent.inputId}: ${sent.delivery}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
