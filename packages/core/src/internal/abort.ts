/**
 * Aborting Sema's own controllers (a step, a watcher, a tail) with one shared reason. A bare
 * `controller.abort()` builds a fresh `DOMException`, stack trace included, every time: at 10,000
 * live tasks that was 8% of the process's CPU. The shared reason is the same `AbortError` a bare
 * abort gives, so whoever reads `signal.reason` sees no difference.
 */

const ABORTED = new DOMException("This operation was aborted", "AbortError");

/** `controller.abort()` without building a new reason. */
export function abortCheaply(controller: AbortController): void {
  controller.abort(ABORTED);
}
