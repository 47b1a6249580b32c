/**
 * For the PostgreSQL kill tests: what a torn write would leave in a schema — rows of no task and
 * logs that do not run 1 … last_seq, the checks `tornRows` of kill-fixture.ts makes of a SQLite
 * file — and, for a prune, children whose parent is gone (a migration part-way may have copied a
 * child before its parent).
 */
import { withClient } from "../../../postgres/src/test-server.fixture.ts";

/** Rows that belong to no task and torn logs in the schema `schema`; with `parents`, children without their parent too. */
export function pgTornRows(schema: string, options: { parents?: boolean } = {}): Promise<string[]> {
  const s = `"${schema}"`;
  return withClient(async (client) => {
    const problems: string[] = [];
    for (const table of ["events", "inputs", "snapshots", "blob_refs"]) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${s}.${table} WHERE task_no NOT IN (SELECT task_no FROM ${s}.tasks)`,
      );
      if (rows[0]?.n !== 0) problems.push(`${table}: ${String(rows[0]?.n)} orphan rows`);
    }
    const torn = await client.query<{ task_id: string }>(
      `SELECT t.task_id FROM ${s}.tasks t LEFT JOIN ${s}.events e ON e.task_no = t.task_no
        GROUP BY t.task_no HAVING count(e.seq) <> t.last_seq OR max(e.seq) <> t.last_seq`,
    );
    for (const row of torn.rows) problems.push(`task ${row.task_id} has a torn log`);
    if (options.parents !== true) return problems;
    const orphans = await client.query<{ task_id: string }>(
      `SELECT task_id FROM ${s}.tasks WHERE parent_task_id IS NOT NULL
        AND parent_task_id NOT IN (SELECT task_id FROM ${s}.tasks)`,
    );
    for (const row of orphans.rows) problems.push(`child ${row.task_id} outlived its parent`);
    return problems;
  });
}
