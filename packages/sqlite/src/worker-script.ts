/**
 * Starting one of the store's worker threads (the writer, the checkpointer): the module beside
 * this one, and the options of this process the worker gets.
 */

/**
 * Options of this process a worker gets: those that change how modules load and what warnings
 * print, which the worker's own module may need (a `--conditions`, a loader hook, type stripping).
 * Nothing else: Node refuses to start a worker given a V8 option (`--max-old-space-size`,
 * `--expose-gc`, `--stack-size` …), which holds for the whole process anyway, and options that
 * say which program the process runs (`-e`, `--test`) are not the worker's. An option that takes
 * its value as the next argument is marked true.
 */
const LOADING_OPTIONS = new Map<string, boolean>([
  ["--conditions", true],
  ["-C", true],
  ["--import", true],
  ["--require", true],
  ["-r", true],
  ["--loader", true],
  ["--experimental-loader", true],
  ["--disable-warning", true],
  ["--experimental-strip-types", false],
  ["--no-experimental-strip-types", false],
  ["--experimental-transform-types", false],
  ["--experimental-import-meta-resolve", false],
  ["--experimental-require-module", false],
  ["--no-experimental-require-module", false],
  ["--experimental-detect-module", false],
  ["--experimental-vm-modules", false],
  ["--experimental-sqlite", false],
  ["--enable-source-maps", false],
  ["--preserve-symlinks", false],
  ["--no-warnings", false],
  ["--no-deprecation", false],
  ["--trace-warnings", false],
  ["--trace-deprecation", false],
  ["--trace-uncaught", false],
]);

/**
 * The options of `given` (this process's `execArgv`) for the worker: the loading ones, each with
 * its value (`--import x` or `--import=x`), and `--conditions=source` when running from sources.
 */
export function workerExecArgv(given: readonly string[], fromSources: boolean): string[] {
  const args: string[] = [];
  for (let i = 0; i < given.length; i++) {
    const arg = given[i] as string;
    const name = arg.split("=", 1)[0] as string;
    const takesValue = LOADING_OPTIONS.get(name);
    // Any other option is left out; a value of its own, given apart, is no option name either.
    if (takesValue === undefined) continue;
    args.push(arg);
    if (takesValue && !arg.includes("=") && i + 1 < given.length) args.push(given[++i] as string);
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
  return { url, execArgv: workerExecArgv(process.execArgv, fromSources) };
}
