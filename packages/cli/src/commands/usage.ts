/**
 * `sema usage [--principal P] [--json] [--db path]`: a principal's usage from the store's counters
 * (tokens and dollars in the rolling day and the calendar month, active tasks) beside its quotas
 * from `sema.config.*` and its live tokens' records; `--json` prints the object `GET /v1/usage`
 * answers with.
 */
import { parseArgs } from "node:util";
import { type PrincipalUsage, principalUsage, quotaResolver } from "@sema-agent/core/quotas";
import { loadQuotas } from "../agent-config.ts";
import { type CliIo, openBackend, STORE_OPTIONS } from "../context.ts";
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
  const settings = await loadQuotas(io.cwd);
  const backend = await openBackend(io, values);
  try {
    const principal = values.principal ?? "local";
    // With quotas on, the config's and those of the principal's live tokens: what sema serve enforces.
    const quotas =
      settings === undefined ? undefined : await quotaResolver(settings, { tokens: await backend.tokens() })(principal);
    const report = await principalUsage(backend.store, principal, settings, Date.now(), quotas);
    io.stdout.write(`${values.json === true ? jsonLine(report) : terminalSafe(usageText(report))}\n`);
    return 0;
  } finally {
    await backend.close();
  }
}
