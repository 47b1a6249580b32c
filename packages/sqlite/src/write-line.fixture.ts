/**
 * Synchronous line output for the kill fixtures. A child's stdout is a non-blocking pipe, so
 * `writeSync` answers EAGAIN when the parent reads slowly (a busy CI machine) and the pipe is
 * full; the fixture must not die of that, and a line must be out before the next step runs (an
 * acknowledgement printed is one the parent may count), so this retries until every byte is out.
 */
import { writeSync } from "node:fs";

/** Write `line` to stdout in full, synchronously, retrying while the pipe is full. */
export function writeLine(line: string): void {
  const bytes = Buffer.from(`${line}\n`);
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(1, bytes, done);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
    }
  }
}
