/**
 * `sema migrate --from <path|url> --to <path|url> [--principal P] [--since 30d|ISO time] [--json]`:
 * copy tasks from one store to another (a SQLite file or a PostgreSQL URL each): logs exactly as
 * stored, blobs, A2A push configs, and the principals' datasets and experiments (records); each
 * task verified by the digest of its log. Run it again after a kill: what is there already is
 * checked, not copied twice. Tasks with a leg running are refused
 * (exit 1; run again once they park). See docs/guide/operating-a-store.md.
 */
import { parseArgs } from "node:util";
import { type CliIo, openBackend, UsageError } from "../context.ts";
import { migrateStores } from "../migrate/migrate-stores.ts";
import { durationMs, durationSchema } from "../retention/policy.ts";
import { jsonLine, terminalSafe } from "../terminal-safe.ts";

const USAGE = "usage: sema migrate --from <path|url> --to <path|url> [--principal P] [--since 30d|ISO time] [--json]";

/** `--since`: an age before now, or an ISO-8601 time. */
function sinceOf(text: string | undefined, nowMs: number): number | undefined {
  if (text === undefined) return undefined;
  if (durationSchema.safeParse(text).success) return nowMs - durationMs(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`--since takes an age (30d) or an ISO time, not "${text}"`);
  return ms;
}

/** `sema migrate`: see the module comment. Exit 0 all copied or present; 1 some refused or mismatched; 2 a flag that does not fit. */
export async function migrate(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      principal: { type: "string" },
      since: { type: "string" },
      json: { type: "boolean" },
    },
  });
  if (positionals.length > 0 || values.from === undefined || values.to === undefined) throw new UsageError(USAGE);
  if (values.from === values.to) throw new UsageError("--from and --to are the same store");
  const nowMs = Date.now();
  const sinceMs = sinceOf(values.since, nowMs);
  const from = await openBackend(io, { store: values.from });
  try {
    const to = await openBackend(io, { store: values.to });
    try {
      const report = await migrateStores(from.store, to.store, {
        nowMs,
        ...(values.principal === undefined ? {} : { principal: values.principal }),
        ...(sinceMs === undefined ? {} : { sinceMs }),
        from: { pushConfigs: await from.pushConfigs() },
        to: { pushConfigs: await to.pushConfigs() },
      });
      if (values.json === true) io.stdout.write(`${jsonLine(report)}\n`);
      else {
        for (const { taskId, reason } of [...report.refused, ...report.mismatched])
          io.stdout.write(`${terminalSafe(`not copied  ${taskId}  ${reason}`)}\n`);
        for (const { kind, principal, name, reason } of report.records.mismatched)
          io.stdout.write(`${terminalSafe(`not copied  ${kind} ${principal}/${name}  ${reason}`)}\n`);
        io.stdout.write(
          `${terminalSafe(`Migrated ${from.label} → ${to.label}: ${report.copied.length} task(s) copied, ${report.present.length} already there, ${report.refused.length} refused, ${report.mismatched.length} mismatched; ${report.blobs} blob(s), ${report.pushConfigs} push config(s), ${report.records.copied} record version(s)`)}\n`,
        );
      }
      const problems = report.refused.length + report.mismatched.length + report.records.mismatched.length;
      return problems === 0 ? 0 : 1;
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
