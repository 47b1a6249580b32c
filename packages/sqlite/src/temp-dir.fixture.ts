/** Temporary directories for tests, each removed after the test file has run. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh empty directory; the database files of one test go in it. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-sqlite-"));
  made.push(dir);
  return dir;
}

/** A path for a new database file in a fresh directory. */
export function tempDb(): string {
  return join(tempDir(), "sema.db");
}
