/**
 * Polls `check` every 10 ms until it gives something other than `undefined` or `false`, and
 * returns that; fails after the timeout, naming what it waited for. For tests over real sockets
 * and processes, where a deadline takes the place of a fixed sleep.
 */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  whatOrTimeoutMs: string | number = "the condition",
  timeoutMs = 10_000,
): Promise<T> {
  const what = typeof whatOrTimeoutMs === "string" ? whatOrTimeoutMs : "the condition";
  const deadline = Date.now() + (typeof whatOrTimeoutMs === "number" ? whatOrTimeoutMs : timeoutMs);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
