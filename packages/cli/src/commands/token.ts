/**
 * `sema token create --principal P [--actor A] [--role approver] [--role supervisor] [--role metrics] [--quota name=value …] [--db path | --store url]`,
 * `sema token revoke <tokenId|token>`, `sema token list`: bearer tokens for `sema serve`. The
 * token is printed once; only its hash is stored.
 */
import { parseArgs } from "node:util";
import type { CreatedToken, Role } from "@sema-agent/server";
import { type CliIo, openBackend, STORE_OPTIONS, UsageError } from "../context.ts";
import { terminalSafe } from "../terminal-safe.ts";

const USAGE =
  "usage: sema token create --principal <name> [--actor <id>] [--role approver|supervisor|metrics] [--quota name=value …] | sema token revoke <tokenId> | sema token list";

/** `--quota tokensPerDay=100000` (repeatable) as a quotas object; the token store checks names and values. */
function quotasOfFlags(flags: readonly string[] | undefined): Record<string, number> | undefined {
  if (flags === undefined || flags.length === 0) return undefined;
  const quotas: Record<string, number> = {};
  for (const flag of flags) {
    const match = /^([A-Za-z]+)=([0-9]+(?:\.[0-9]+)?)$/.exec(flag);
    if (match === null) throw new UsageError(`--quota takes name=number (e.g. tokensPerDay=100000), got ${flag}`);
    quotas[match[1] as string] = Number(match[2]);
  }
  return quotas;
}

export async function token(argv: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      ...STORE_OPTIONS,
      principal: { type: "string" },
      actor: { type: "string" },
      role: { type: "string", multiple: true },
      quota: { type: "string", multiple: true },
    },
    allowPositionals: true,
  });
  const backend = await openBackend(io, values);
  const tokens = await backend.tokens();
  try {
    switch (action) {
      case "create": {
        if (values.principal === undefined) throw new UsageError(USAGE);
        const quotas = quotasOfFlags(values.quota);
        let created: CreatedToken;
        try {
          created = await tokens.create({
            principal: values.principal,
            ...(values.actor === undefined ? {} : { actorId: values.actor }),
            roles: (values.role ?? []) as Role[],
            ...(quotas === undefined ? {} : { quotas }),
          });
        } catch (error) {
          if (error instanceof TypeError) throw new UsageError(error.message);
          throw error;
        }
        const { record } = created;
        io.stdout.write(`${created.token}\n`);
        io.stderr.write(
          `token ${record.tokenId}: principal ${record.principal}, actor ${record.actorId}, roles ${record.roles.join(", ") || "none"}${record.quotas === undefined ? "" : `, quotas ${JSON.stringify(record.quotas)}`} (shown once)\n`,
        );
        return 0;
      }
      case "revoke": {
        const [id] = positionals;
        if (id === undefined) throw new UsageError(USAGE);
        if (!(await tokens.revoke(id))) {
          io.stderr.write(`sema: no such live token: ${id}\n`);
          return 1;
        }
        io.stdout.write(`revoked ${id}\n`);
        return 0;
      }
      case "list":
        for (const record of await tokens.list()) {
          io.stdout.write(
            `${terminalSafe(`${record.tokenId}  ${record.principal}  ${record.actorId}  ${record.roles.join(",") || "-"}  ${record.revokedAt === undefined ? "live" : `revoked ${record.revokedAt}`}`)}\n`,
          );
        }
        return 0;
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await backend.close();
  }
}
