/**
 * Running one hook call: under its timeout, never throwing, and what its failure means (open: as if
 * the hook had not been there; closed: the guarded action does not happen). The per-leg runner
 * that records failures and feedback is `hook-runner.ts`.
 */
import type { HookName, HookSettings } from "./hooks.ts";

/** How long a hook call may take unless `HookSettings.timeoutMs` says otherwise. */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;

/** Whether a failure of `hook` fails open or closed under `settings`. */
export function failureMode(settings: HookSettings | undefined, hook: HookName): "open" | "closed" {
  return settings?.failure?.[hook] ?? (hook === "beforeTool" ? "closed" : "open");
}

/** One hook call's result: its value, or why it failed. */
export type HookRun<T> = { ok: true; value: T } | { ok: false; message: string };

/** Run one hook call under the timeout; never throws. */
export async function runHook<T>(run: () => T | Promise<T>, timeoutMs: number): Promise<HookRun<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<HookRun<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, message: `timed out after ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    const call = Promise.resolve()
      .then(run)
      .then(
        (value): HookRun<T> => ({ ok: true, value }),
        (error: unknown): HookRun<T> => ({
          ok: false,
          message: error instanceof Error ? error.message : String(error),
        }),
      );
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
