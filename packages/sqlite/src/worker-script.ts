/**
 * Starting one of the store's worker threads (the writer, the checkpointer): the module beside
 * this one, and the options of this process the worker gets.
 */

/**
 * Options of this process a worker must not inherit (Node's default): they say which program the
 * process runs (`-e`, `--input-type`, `--test` …), not how modules load, or set V8 for the whole
 * process; some are refused in a worker. Those that take a value as the next argument are marked true.
 */
const PROGRAM_OPTIONS = new Map<string, boolean>([
  ["--input-type", true],
  ["--eval", true],
  ["-e", true],
  ["--print", true],
  ["-p", true],
  ["--test", false],
  ["--watch", false],
  ["--watch-path", true],
  ["--check", false],
  ["-c", false],
  ["--interactive", false],
  ["-i", false],
  // A V8 flag: it already holds for every isolate of the process, and a worker refuses it (the
  // test runner sets it against a V8 abort, see vitest.config.ts).
  ["--no-memory-protection-keys", false],
]);

/** This process's options for the worker: the loading ones (`--conditions`, `--import` …), not the program's. */
function workerExecArgv(fromSources: boolean): string[] {
  const args: string[] = [];
  const given = process.execArgv;
  for (let i = 0; i < given.length; i++) {
    const arg = given[i] as string;
    const name = arg.split("=", 1)[0] as string;
    const takesValue = PROGRAM_OPTIONS.get(name);
    if (takesValue === undefined) args.push(arg);
    else if (takesValue && !arg.includes("=")) i++;
  }
  if (fromSources && !args.some((arg) => arg.startsWith("--conditions") || arg.startsWith("-C"))) {
    args.push("--conditions=source");
  }
  return args;
}

/**
 * The worker's module beside this one: `.ts` when running from the sources (Node strips the types;
 * the worker gets `--conditions=source` so its imports resolve to the sources too), `.js` in the
 * built package.
 */
export function workerScript(name: "writer-worker" | "checkpoint-worker"): { url: URL; execArgv: string[] } {
  const fromSources = import.meta.url.endsWith(".ts");
  const url = new URL(`./${name}.${fromSources ? "ts" : "js"}`, import.meta.url);
  return { url, execArgv: workerExecArgv(fromSources) };
}
