/** A `CliIo` whose output the test reads, and polling with a deadline for in-process servers. */
import type { CliIo } from "../context.ts";

export interface CapturedIo {
  io: CliIo;
  out: () => string;
  err: () => string;
}

/** Capture stdout and stderr of a command run in `cwd`; `extra` sets the rest of the io. */
export function captureIo(cwd: string, options: { tty?: boolean; extra?: Partial<CliIo> } = {}): CapturedIo {
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (out += t), isTTY: options.tty ?? false },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    cwd,
    ...options.extra,
  };
  return { io, out: () => out, err: () => err };
}

/** Resolve once `check` holds; throw when it has not by `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
