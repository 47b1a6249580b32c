/**
 * Run each subject of a benchmark in a fresh Node process: its memory readings are its own, and a
 * subject that warmed up the JIT, grew the heap or filled the page cache cannot flatter the next.
 */
import { spawn } from "node:child_process";
import type { ResultRow } from "./table.ts";

/** Prefix of the stdout line that carries a child's results. */
export const RESULT_PREFIX = "@@bench-result ";

/** Print rows for the parent (call once, from the child, at the end). */
export function reportToParent(rows: readonly ResultRow[]): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(rows)}\n`);
}

/** How to start a child. */
export interface ChildOptions {
  /**
   * Resolve packages with the `source` condition (default true), so workspace packages load their
   * TypeScript. Off for third-party code: some npm packages publish a `source` condition pointing
   * at TypeScript that Node will not strip under node_modules.
   */
  sourceCondition?: boolean;
}

/**
 * Run `script` (a .ts file, with the `source` condition so workspace packages resolve to their
 * sources) with `args`; its stderr and other stdout pass through. Resolves with the rows it reported.
 */
export function runInChild<Row extends ResultRow = ResultRow>(
  script: string,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<Row[]> {
  const conditions = options.sourceCondition === false ? [] : ["--conditions=source"];
  // NODE_OPTIONS may not carry --cpu-prof, so a profile of the measured child is asked for here.
  const profile = process.env.SEMA_BENCH_CPU_PROF;
  if (profile !== undefined) conditions.push("--cpu-prof", "--cpu-prof-dir", profile);
  // And a sampling profile of its allocations: what keeps the garbage collector busy.
  const heapProfile = process.env.SEMA_BENCH_HEAP_PROF;
  if (heapProfile !== undefined) conditions.push("--heap-prof", "--heap-prof-dir", heapProfile);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...conditions, "--no-warnings", script, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.on("error", reject);
    proc.on("exit", (code) => {
      const line = out.split("\n").find((text) => text.startsWith(RESULT_PREFIX));
      process.stdout.write(
        out
          .split("\n")
          .filter((text) => text !== "" && !text.startsWith(RESULT_PREFIX))
          .map((text) => `${text}\n`)
          .join(""),
      );
      if (code !== 0 || line === undefined) reject(new Error(`${script} ${args.join(" ")} exited ${code}`));
      else resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as Row[]);
    });
  });
}
