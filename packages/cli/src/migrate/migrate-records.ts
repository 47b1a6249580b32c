/**
 * Copying a store's records (`sema migrate`): the evaluation datasets and experiments of the
 * principals migrated, every version of each name in order, so each keeps its version number (an
 * experiment names the dataset version it ran). The target stamps each version's `createdAt` anew
 * (`putRecord` has no other way). Resumable: each put is conditional on the version before it, so
 * a run again puts only the versions the target lacks; a name whose versions differ in the target
 * is never written to.
 */
import type { JsonValue, Store } from "@sema-agent/core";
import { canonicalJson } from "@sema-agent/core/store-kit";
import { DATASET_KIND, EXPERIMENT_KIND } from "@sema-agent/evals";

/** The kinds of records a migration copies: the evals package's datasets and experiments. */
export const MIGRATED_RECORD_KINDS: readonly string[] = [DATASET_KIND, EXPERIMENT_KIND];

/** What copying the records did. */
export interface RecordsReport {
  /** Versions written to the target by this run. */
  copied: number;
  /** Versions already in the target, equal. */
  present: number;
  /** Names whose versions in the target differ from the source's: left as they are. */
  mismatched: Array<{ kind: string; principal: string; name: string; reason: string }>;
}

/** Whether two versions hold the same meta and body. */
function sameVersion(a: { meta: JsonValue; body: JsonValue }, b: { meta: JsonValue; body: JsonValue }): boolean {
  return canonicalJson(a.meta) === canonicalJson(b.meta) && canonicalJson(a.body) === canonicalJson(b.body);
}

/** Copy `principals`' records of the migrated kinds from `from` to `to` (see the module comment). */
export async function migrateRecords(from: Store, to: Store, principals: readonly string[]): Promise<RecordsReport> {
  const report: RecordsReport = { copied: 0, present: 0, mismatched: [] };
  if (from.listRecords === undefined || from.getRecord === undefined) return report;
  if (to.putRecord === undefined || to.getRecord === undefined)
    throw new Error("the target store keeps no records (putRecord / getRecord)");
  for (const principal of principals) {
    for (const kind of MIGRATED_RECORD_KINDS) {
      let cursor: string | undefined;
      do {
        const page = await from.listRecords({
          kind,
          principal,
          limit: 1000,
          ...(cursor === undefined ? {} : { cursor }),
        });
        for (const latest of page.records) await copyName(from, to, latest, report);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    }
  }
  return report;
}

async function copyName(
  from: Store,
  to: Store,
  latest: { kind: string; principal: string; name: string; version: number },
  report: RecordsReport,
): Promise<void> {
  const { kind, principal, name } = latest;
  const there = (await to.getRecord?.({ kind, principal, name }))?.version ?? 0;
  for (let version = 1; version <= latest.version; version++) {
    const source = await from.getRecord?.({ kind, principal, name, version });
    if (source === undefined) throw new Error(`record ${kind} ${principal}/${name} has no version ${version}`);
    if (version <= there) {
      const target = await to.getRecord?.({ kind, principal, name, version });
      if (target !== undefined && sameVersion(target, source)) {
        report.present++;
        continue;
      }
      report.mismatched.push({ kind, principal, name, reason: `version ${version} differs in the target` });
      return;
    }
    // Conditional on the version before: a run killed after this put finds it there and goes on.
    await to.putRecord?.({ kind, principal, name, meta: source.meta, body: source.body, expectedVersion: version - 1 });
    report.copied++;
  }
  if (there > latest.version)
    report.mismatched.push({
      kind,
      principal,
      name,
      reason: `the target has ${there} versions, the source ${latest.version}`,
    });
}
