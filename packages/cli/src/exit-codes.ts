/**
 * What `sema run` and `sema resume` exit with, so a script can tell a finished run from one that
 * parked and why. Completed 0, failed or cancelled 1 and a usage or configuration mistake 2 are as
 * every command has them; a parked run has a code of its own per kind of wait; Ctrl-C 130. USAGE
 * (main.ts) documents them.
 */
import type { ParkReason } from "@sema-agent/core";

/** The exit code of a leg that parked for `reason` (Ctrl-C at this terminal is 130, not this). */
export function parkedExitCode(reason: ParkReason | undefined): number {
  switch (reason) {
    case "approval":
      return 3;
    case "model":
      return 4;
    case "budget":
    case "quota":
      return 5;
    case "interrupt":
      return 6;
    default:
      // Waiting on something that comes by itself or from outside (an input, a timer, a child,
      // an external tool), or left for any host to pick up (shutdown, crash, a fork).
      return 7;
  }
}
