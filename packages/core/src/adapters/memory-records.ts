/**
 * The records of a `MemoryStore` (see `Store.putRecord`): every version of every name, by kind and
 * principal, in memory. Bodies are kept as JSON text, so what a caller holds is never shared.
 */
import type { JsonValue } from "../protocol/json.ts";
import type {
  ListRecordsOptions,
  PutRecordInput,
  RecordListing,
  RecordPage,
  StoredRecord,
} from "../protocol/records.ts";
import { checkExpectedVersion, checkPutRecord, checkRecordKey, recordPageRequest } from "./record-rules.ts";

interface Version {
  version: number;
  createdAt: string;
  metaJson: string;
  bodyJson: string;
}

/** The key of a name's versions: kind, principal and name, none of which holds a newline. */
function keyOf(kind: string, principal: string, name: string): string {
  return JSON.stringify([kind, principal, name]);
}

export class MemoryRecords {
  readonly #versions = new Map<string, Version[]>();

  put(input: PutRecordInput, createdAt: string): StoredRecord {
    const { bodyJson, metaJson } = checkPutRecord(input);
    const key = keyOf(input.kind, input.principal, input.name);
    const versions = this.#versions.get(key) ?? [];
    checkExpectedVersion(input, versions.length);
    const version: Version = { version: versions.length + 1, createdAt, metaJson, bodyJson };
    versions.push(version);
    this.#versions.set(key, versions);
    return this.#record(input, version);
  }

  get(query: { kind: string; principal: string; name: string; version?: number }): StoredRecord | undefined {
    checkRecordKey(query);
    const versions = this.#versions.get(keyOf(query.kind, query.principal, query.name));
    const version = query.version === undefined ? versions?.at(-1) : versions?.[query.version - 1];
    return version === undefined ? undefined : this.#record(query, version);
  }

  list(options: ListRecordsOptions): RecordPage {
    const { limit, after } = recordPageRequest(options);
    const names: string[] = [];
    for (const key of this.#versions.keys()) {
      const [kind, principal, name] = JSON.parse(key) as [string, string, string];
      if (kind === options.kind && principal === options.principal && (after === undefined || name > after))
        names.push(name);
    }
    names.sort();
    const page = names.slice(0, limit);
    const records = page.map((name): RecordListing => {
      const { body: _body, ...listing } = this.get({ ...options, name }) as StoredRecord;
      return listing;
    });
    const last = page.at(-1);
    return names.length > limit && last !== undefined ? { records, nextCursor: last } : { records };
  }

  #record(key: { kind: string; principal: string; name: string }, version: Version): StoredRecord {
    return {
      kind: key.kind,
      principal: key.principal,
      name: key.name,
      version: version.version,
      createdAt: version.createdAt,
      meta: JSON.parse(version.metaJson) as { [key: string]: JsonValue },
      body: JSON.parse(version.bodyJson) as JsonValue,
    };
  }
}
