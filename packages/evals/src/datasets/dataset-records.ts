/**
 * Datasets kept in the store under a name, per principal (`Store.putRecord`, kind `dataset`):
 * each save adds a version, so an experiment that names a version reads the cases it ran. The
 * body is versioned (`v: 1`) and checked case by case when read back.
 */
import type { Store } from "@sema-agent/core";
import {
  ConfigError,
  InvalidInputError,
  type JsonValue,
  type RecordListing,
  RecordNotFoundError,
} from "@sema-agent/core/protocol";
import { checkCases, type Dataset } from "./parse-dataset.ts";

/** The record kind datasets are kept under. */
export const DATASET_KIND = "dataset";

/** A dataset as stored: its name and version with the cases. */
export interface StoredDataset extends Dataset {
  name: string;
  version: number;
  createdAt: string;
}

type RecordStore = Store & Required<Pick<Store, "putRecord" | "getRecord" | "listRecords">>;

/** The store, if it keeps records; `ConfigError` naming what is missing otherwise. */
export function recordStore(store: Store, where: string): RecordStore {
  if (store.putRecord === undefined || store.getRecord === undefined || store.listRecords === undefined)
    throw new ConfigError(where, [
      {
        path: "store",
        message: "keeps no records (putRecord, getRecord, listRecords): use MemoryStore, SqliteStore or PostgresStore",
      },
    ]);
  return store as RecordStore;
}

/** Save `dataset` as the next version of `name` for `principal`. */
export async function saveDataset(
  store: Store,
  principal: string,
  name: string,
  dataset: Dataset,
): Promise<StoredDataset> {
  const records = recordStore(store, "saveDataset");
  const body = { v: 1, cases: dataset.cases } as unknown as JsonValue;
  const saved = await records.putRecord({
    kind: DATASET_KIND,
    principal,
    name,
    body,
    meta: { cases: dataset.cases.length, digest: dataset.digest },
  });
  return { name, version: saved.version, createdAt: saved.createdAt, ...dataset };
}

/** A saved dataset (its latest version, or `version`); `RecordNotFound` when there is none for `principal`. */
export async function loadDataset(
  store: Store,
  principal: string,
  name: string,
  version?: number,
): Promise<StoredDataset> {
  const records = recordStore(store, "loadDataset");
  const query =
    version === undefined ? { kind: DATASET_KIND, principal, name } : { kind: DATASET_KIND, principal, name, version };
  const record = await records.getRecord(query);
  if (record === undefined) throw new RecordNotFoundError(DATASET_KIND, name, version);
  const body = record.body as { v?: unknown; cases?: unknown };
  if (body === null || typeof body !== "object" || body.v !== 1 || !Array.isArray(body.cases))
    throw new InvalidInputError(
      `dataset ${name} version ${record.version} is stored in a form this version does not read`,
    );
  const dataset = await checkCases(body.cases);
  return { name, version: record.version, createdAt: record.createdAt, ...dataset };
}

/** Every record of `kind` of `principal`: the latest version of each name, in name order, every page read. */
export async function listAllRecords(
  store: Store,
  kind: string,
  principal: string,
  where: string,
): Promise<RecordListing[]> {
  const records = recordStore(store, where);
  const out: RecordListing[] = [];
  let cursor: string | undefined;
  do {
    const page = await records.listRecords({ kind, principal, ...(cursor === undefined ? {} : { cursor }) });
    out.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return out;
}

/** Every dataset of `principal`: the latest version of each name, in name order. */
export function listDatasets(store: Store, principal: string): Promise<RecordListing[]> {
  return listAllRecords(store, DATASET_KIND, principal, "listDatasets");
}
