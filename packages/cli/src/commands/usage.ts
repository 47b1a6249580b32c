/**
 * `sema usage [--principal P] [--json] [--db path]`: a principal's usage from the store's counters
 * (tokens and dollars in the rolling day and the calendar month, active tasks) beside its quotas
 * from `sema.config.*`; `--json` prints the object `GET /v1/usage` answers with.
 */
import { parseArgs } from "node:util";
import { type PrincipalUsage, principalUsage } from "@sema-agent/core";
import { loadQuotas } from "../agent-config.ts";
import { type CliIo, openStore, STORE_OPTIONS } from "../context.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

function limit(value: number | undefined, unit: (n: number) => string): string {
  return value === undefined ? "" : ` of ${unit(value)}`;
}

const tokens = (n: number) => `${n} tokens`;
const dollars = (n: number) => `$${n.toFixed(4)}`;

/** The human form: one line per window and one for the active tasks, each with its quota. */
export function usageText(usage: PrincipalUsage): string {
  const { quotas } = usage;
  return [
    `Principal ${usage.principal} at ${usage.at}`,
    `  last 24 h (since ${usage.day.since}): ${tokens(usage.day.tokens)}${limit(quotas.tokensPerDay, tokens)}, ${dollars(usage.day.costUsd)}${limit(quotas.costUsdPerDay, dollars)}`,
    `  this month (since ${usage.month.since}): ${tokens(usage.month.tokens)}${limit(quotas.tokensPerMonth, tokens)}, ${dollars(usage.month.costUsd)}${limit(quotas.costUsdPerMonth, dollars)}`,
    `  active tasks: ${usage.activeTasks}${limit(quotas.concurrentTasks, String)}`,
  ].join("\n");
}

export async function usage(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { ...STORE_OPTIONS, json: { type: "boolean" }, principal: { type: "string" } },
  });
  const quotas = await loadQuotas(io.cwd);
  const store = await openStore(io, values);
  try {
    const report = await principalUsage(store, values.principal ?? "local", quotas, Date.now());
    io.stdout.write(`${values.json === true ? jsonLine(report) : terminalSafe(usageText(report))}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
