/**
 * How every long-lived delivery (an event stream, an AG-UI run, an MCP session's waits) learns
 * that the token it was opened with is gone: at once for a revocation made in this process, and
 * by re-asking the token store every `recheckMs` for one made elsewhere (another process, the CLI).
 */
import type { Caller } from "./caller.ts";

/**
 * Call `onRevoked` once, when `caller`'s token stops being valid (or its validity cannot be told).
 * Returns the function that stops watching; it is safe to call more than once.
 */
export function watchToken(caller: Caller, recheckMs: number, onRevoked: () => void): () => void {
  let done = false;
  const stops: Array<() => void> = [];
  const stop = () => {
    if (done) return;
    done = true;
    for (const each of stops) each();
  };
  const revoked = () => {
    if (done) return;
    stop();
    onRevoked();
  };
  const { stillValid, onRevoked: subscribe } = caller;
  if (subscribe !== undefined) stops.push(subscribe(revoked));
  if (stillValid !== undefined) {
    const timer = setInterval(() => {
      void stillValid().then(
        (valid) => valid || revoked(),
        () => revoked(),
      );
    }, recheckMs);
    // A watch never keeps the process alive by itself.
    timer.unref?.();
    stops.push(() => clearInterval(timer));
  }
  return stop;
}
