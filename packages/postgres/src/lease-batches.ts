/**
 * Group commit of lease changes: the acquisitions, renewals and releases of concurrent legs go as
 * one statement each (arrays of task ids). A task the batch statement could not change (held by
 * another holder, no such task, a lost lease) is retried alone on the locking path, which reports
 * its own typed error.
 */
import type { AcquireLeaseOptions, GroupCommitSettings, Lease } from "@sema-agent/core/store-kit";
import type pg from "pg";
import { Coalescer } from "./coalescer.ts";
import type { Queries } from "./queries.ts";

/** A lease acquisition waiting for its batch: the lease it would take (its expiry set on success). */
export interface BatchedAcquire {
  lease: Lease;
  options: AcquireLeaseOptions;
  resolve(lease: Lease): void;
  reject(error: unknown): void;
}

/** A lease renewal waiting for its batch. */
export interface BatchedRenew {
  taskId: string;
  token: string;
  ttlMs: number;
  resolve(lease: Lease): void;
  reject(error: unknown): void;
}

/** A lease release waiting for its batch. */
export interface BatchedRelease {
  taskId: string;
  token: string;
  resolve(released: { wantsWorker: boolean } | undefined): void;
  reject(error: unknown): void;
}

/** What the lease batches need from their store. */
export interface LeaseBatchHost {
  query<R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]>;
  /** The same on the priority lane, for renewals: they must not wait behind the legs' reads and appends. */
  renewQuery<R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]>;
  sql: Queries;
  /** The locking path for one acquisition (it throws the precise error). */
  acquireAlone(taskId: string, options: AcquireLeaseOptions): Promise<Lease>;
  /** The locking path for one renewal. */
  renewAlone(taskId: string, token: string, ttlMs: number): Promise<Lease>;
}

/** Lease acquisitions in batches. */
export function acquireCoalescer(host: LeaseBatchHost, settings: GroupCommitSettings): Coalescer<BatchedAcquire> {
  return new Coalescer(
    settings,
    (acquire) => acquire.lease.taskId,
    async (batch) => {
      let rows: Array<{ task_id: string; expires_ms: number }>;
      try {
        rows = await host.query(host.sql.acquireLeases, [
          batch.map((a) => a.lease.taskId),
          batch.map((a) => a.lease.token),
          batch.map((a) => JSON.stringify(a.lease.holder)),
          batch.map((a) => a.lease.holder.id),
          batch.map((a) => a.options.ttlMs),
          batch.map((a) => a.options.replaceHolderId ?? null),
        ]);
      } catch (error) {
        for (const acquire of batch) acquire.reject(error);
        return;
      }
      const taken = new Map(rows.map((row) => [row.task_id, row.expires_ms]));
      const alone: Array<Promise<void>> = [];
      for (const acquire of batch) {
        const expires = taken.get(acquire.lease.taskId);
        if (expires !== undefined) acquire.resolve({ ...acquire.lease, expiresAt: new Date(expires).toISOString() });
        // Held by another holder, or no such task: the locking path says which.
        else alone.push(host.acquireAlone(acquire.lease.taskId, acquire.options).then(acquire.resolve, acquire.reject));
      }
      await Promise.all(alone);
    },
  );
}

/** Lease renewals in batches. */
export function renewCoalescer(host: LeaseBatchHost, settings: GroupCommitSettings): Coalescer<BatchedRenew> {
  return new Coalescer(
    settings,
    (renew) => renew.taskId,
    async (batch) => {
      let rows: Array<{ task_id: string; lease_holder: string; expires_ms: number }>;
      try {
        rows = await host.renewQuery(host.sql.renewLeases, [
          batch.map((r) => r.taskId),
          batch.map((r) => r.token),
          batch.map((r) => r.ttlMs),
        ]);
      } catch (error) {
        for (const renew of batch) renew.reject(error);
        return;
      }
      const renewed = new Map(rows.map((row) => [row.task_id, row]));
      const alone: Array<Promise<void>> = [];
      for (const renew of batch) {
        const row = renewed.get(renew.taskId);
        if (row !== undefined) {
          renew.resolve({
            taskId: renew.taskId,
            token: renew.token,
            holder: JSON.parse(row.lease_holder) as Lease["holder"],
            expiresAt: new Date(row.expires_ms).toISOString(),
          });
        } else alone.push(host.renewAlone(renew.taskId, renew.token, renew.ttlMs).then(renew.resolve, renew.reject));
      }
      await Promise.all(alone);
    },
  );
}

/** Lease releases in batches. */
export function releaseCoalescer(host: LeaseBatchHost, settings: GroupCommitSettings): Coalescer<BatchedRelease> {
  return new Coalescer(
    settings,
    (release) => release.taskId,
    async (batch) => {
      let rows: Array<{ task_id: string; wants_worker: boolean }>;
      try {
        rows = await host.query(host.sql.releaseLeases, [batch.map((r) => r.taskId), batch.map((r) => r.token)]);
      } catch (error) {
        for (const release of batch) release.reject(error);
        return;
      }
      const released = new Map(rows.map((row) => [row.task_id, row.wants_worker]));
      for (const release of batch) {
        const wants = released.get(release.taskId);
        release.resolve(wants === undefined ? undefined : { wantsWorker: wants });
      }
    },
  );
}
