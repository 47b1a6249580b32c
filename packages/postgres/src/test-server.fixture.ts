/**
 * The PostgreSQL server the tests use, and whether it answers. Probed once at module load with a
 * short timeout, so a machine without one skips the tests quickly — unless
 * `SEMA_REQUIRE_POSTGRES=1` (CI), where an unreachable server fails them instead.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const POSTGRES_URL = process.env.SEMA_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const REQUIRED = process.env.SEMA_REQUIRE_POSTGRES === "1";

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1500 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Why the server cannot be used, or undefined when it answers. */
export const unreachable = await probe();

/** Skip (with a plain message) when there is no server and it is not required. */
export const skip = unreachable !== undefined && !REQUIRED;
if (skip) {
  console.warn(
    `PostgreSQL tests skipped: no server at ${POSTGRES_URL} (${unreachable}). ` +
      "To run them, start PostgreSQL with trust auth and a database `test` on 127.0.0.1:5432, " +
      "or set SEMA_POSTGRES_URL; set SEMA_REQUIRE_POSTGRES=1 to make them mandatory.",
  );
}

/** A fresh schema name, so every test starts from an empty database. */
export function freshSchema(): string {
  return `sema_test_${randomBytes(6).toString("hex")}`;
}

/** Run `work` on a one-off connection of its own. */
export async function withClient<T>(
  work: (client: pg.Client) => Promise<T>,
  connectionString = POSTGRES_URL,
): Promise<T> {
  const client = new pg.Client({ connectionString });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await withClient((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}
