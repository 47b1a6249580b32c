/**
 * `sema token create --principal P [--actor A] [--role approver] [--role supervisor] [--role metrics] [--db path | --store url]`,
 * `sema token revoke <tokenId|token>`, `sema token list`: bearer tokens for `sema serve`. The
 * token is printed once; only its hash is stored.
 */
import { parseArgs } from "node:util";
import type { CreatedToken, Role } from "@sema-agent/server";
import { type CliIo, openBackend, STORE_OPTIONS, UsageError } from "../context.ts";
import { terminalSafe } from "../terminal-safe.ts";

const USAGE =
  "usage: sema token create --principal <name> [--actor <id>] [--role approver|supervisor|metrics] | sema token revoke <tokenId> | sema token list";

export async function token(argv: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      ...STORE_OPTIONS,
      principal: { type: "string" },
      actor: { type: "string" },
      role: { type: "string", multiple: true },
    },
    allowPositionals: true,
  });
  const backend = await openBackend(io, values);
  const tokens = await backend.tokens();
  try {
    switch (action) {
      case "create": {
        if (values.principal === undefined) throw new UsageError(USAGE);
        let created: CreatedToken;
        try {
          created = await tokens.create({
            principal: values.principal,
            ...(values.actor === undefined ? {} : { actorId: values.actor }),
            roles: (values.role ?? []) as Role[],
          });
        } catch (error) {
          if (error instanceof TypeError) throw new UsageError(error.message);
          throw error;
        }
        const { record } = created;
        io.stdout.write(`${created.token}\n`);
        io.stderr.write(
          `token ${record.tokenId}: principal ${record.principal}, actor ${record.actorId}, roles ${record.roles.join(", ") || "none"} (shown once)\n`,
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
