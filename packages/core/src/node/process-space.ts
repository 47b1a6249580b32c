/**
 * Telling that a lease's holder died, when it ran on this machine: its pid no longer exists in
 * the process table it was in. Only then may a lease be taken over before it expires; a holder
 * anywhere else (another machine, another container with the same host name, a boot ago) might
 * still be running, and its lease is waited out.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { hostname, platform, uptime } from "node:os";
import type { LeaseHolder } from "../protocol/task-event.ts";

/** Whether a process with this pid is alive on this machine. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

let space: string | undefined;

/**
 * This process table's identity. Linux: the boot id and the PID namespace (two containers on one
 * kernel share the boot id, never the namespace). Elsewhere, where there are no PID namespaces:
 * the platform and the minute the machine booted.
 */
export function processSpace(): string {
  if (space !== undefined) return space;
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    space = `${boot}/${readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    space = `${platform()}@${Math.round((Date.now() / 1000 - uptime()) / 60)}`;
  }
  return space;
}

/** Whether `holder` was a process in this process table that no longer exists. */
export function holderDiedHere(holder: LeaseHolder): boolean {
  return (
    holder.host === hostname() &&
    holder.space === processSpace() &&
    holder.pid !== undefined &&
    holder.pid !== process.pid &&
    !processAlive(holder.pid)
  );
}
