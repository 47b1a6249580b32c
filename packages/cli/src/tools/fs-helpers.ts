/**
 * Small file-system helpers shared by the built-in file tools: error-code checks, open flags and
 * binary sniffing.
 */
import { constants } from "node:fs";

/**
 * Added to every open: the tools open a path that `confinePath` has already resolved to its real
 * form, so a final component that is a symlink now means it was swapped in after the check —
 * refuse it rather than follow it. `O_NONBLOCK` keeps a FIFO swapped in the same way from hanging
 * the open (it has no effect on regular files). Both are absent on Windows, hence the fallbacks.
 */
export const SAFE_OPEN_FLAGS = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** How many leading bytes decide whether a file is binary (the same heuristic as git's). */
export const BINARY_SNIFF_BYTES = 8 * 1024;

/** True when `error` is a Node.js system error with one of `codes` (e.g. `"ENOENT"`). */
export function hasErrorCode(error: unknown, ...codes: string[]): boolean {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  const { code } = error;
  return typeof code === "string" && codes.includes(code);
}

/** A path that does not exist (or runs through a non-directory, which cannot exist either). */
export function isMissing(error: unknown): boolean {
  return hasErrorCode(error, "ENOENT", "ENOTDIR");
}

/** A NUL byte in the head means binary: text encodings the tools read (UTF-8) never contain one. */
export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** `bytes` as a short human-readable size, for notes the model reads. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
