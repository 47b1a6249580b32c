/**
 * The peer benchmark's common ground: the shape of a task, the interface every framework adapter
 * implements, the scripted model's answers and the instant tool, and the workloads themselves. No
 * framework is imported here, so a peer's child process loads only its own framework.
 */

/** A task: `turns` model calls; every one but the last asks for `toolCallsPerTurn` tool calls. */
export interface TaskShape {
  turns: number;
  toolCallsPerTurn: number;
}

/** One framework, in memory: runs a whole task with an instant scripted model and an instant tool. */
export interface Runner {
  /** Run one task to its final answer; rejects if the framework did not play the whole script. */
  runTask(shape: TaskShape): Promise<void>;
}

/** One framework on a durable store (a SQLite file it owns). */
export interface DurableRunner {
  /** Run one task to its final answer, every step recorded in the store. Returns its id. */
  runTask(shape: TaskShape): Promise<string>;
  /** Close the store (checkpointing SQLite's WAL into the file, so its size is what is stored). */
  close(): Promise<void>;
}

/** What an adapter module exports (the durable parts only for Sema and LangGraph). */
export interface Adapter {
  /** Shown in tables and the chart. */
  name: string;
  /** How it is used, one line for the README. */
  usage: string;
  createRunner(): Promise<Runner> | Runner;
  durable?: {
    open(file: string): Promise<DurableRunner> | DurableRunner;
    /**
     * In a fresh process: open the store at `file`, send `taskId` a new user message and run it;
     * resolves with `performance.now()` when the store was opened and at the first model call.
     */
    resume(file: string, taskId: string): Promise<{ opened: number; firstCall: number }>;
  };
}

/** The objective every task starts from. */
export const OBJECTIVE = "Look everything up.";
/** The final answer that ends every task. */
export const FINAL_TEXT = "Done.";
/** The text that comes with every tool-calling turn. */
export const TURN_TEXT = "Checking.";

/** The instant read-only tool's result for `key`. */
export function lookupResult(key: string): string {
  return `value of ${key}`;
}

/** The tool calls the scripted model asks for at 0-based `turn`: none on the last turn. */
export function callsAt(shape: TaskShape, turn: number): { id: string; key: string }[] {
  if (turn >= shape.turns - 1) return [];
  return Array.from({ length: shape.toolCallsPerTurn }, (_, i) => ({ id: `call-${turn}-${i}`, key: `k${turn}-${i}` }));
}

/** A figure a workload reports, per round; `perTurn` figures are comparable across frameworks. */
export interface Figure {
  metric: string;
  unit: string;
  value: number;
}

/** A workload of the suite, as the CLI names it (`--workload`). */
export interface Workload {
  key: string;
  title: string;
  durable: boolean;
}

/** The suite, in the order it runs and prints. */
export const WORKLOADS: readonly Workload[] = [
  { key: "one-turn", title: "(1) 1-turn task", durable: false },
  { key: "turns-200", title: "(2) 200 turns × 1 tool call", durable: false },
  { key: "turns-200x3", title: "(3) 200 turns × 3 read-only tool calls", durable: false },
  { key: "concurrent", title: "(4) 1,000 concurrent tasks × 10 turns", durable: false },
  { key: "durable-200", title: "(5a) durable, 200 turns × 1 tool call", durable: true },
  { key: "durable-1000", title: "(5b) durable, 1,000 turns × 1 tool call", durable: true },
  { key: "resume", title: "(5c) resume a 1,000-turn task in a fresh process", durable: true },
];

/** CPU time (user + system) since `from`, in ms. */
export function cpuMsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}

/** Peak RSS of this process so far, MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Samples the V8 heap in use every few ms while work runs: the peak a busy loop reaches, which a
 * reading after the run (when the tasks are gone) would not show. The sampler itself is negligible.
 */
export function heapSampler(): { stop(): number } {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().heapUsed) / 2 ** 20;
    },
  };
}

/** Wall and CPU per turn, peak heap and peak RSS of running `tasks` tasks of `shape`, `parallel` at once. */
export async function measureTasks(
  runner: Runner,
  shape: TaskShape,
  tasks: number,
  parallel: boolean,
): Promise<Figure[]> {
  const heap = heapSampler();
  const cpu = process.cpuUsage();
  const start = performance.now();
  if (parallel) await Promise.all(Array.from({ length: tasks }, () => runner.runTask(shape)));
  else for (let i = 0; i < tasks; i++) await runner.runTask(shape);
  const wall = performance.now() - start;
  const cpuMs = cpuMsSince(cpu);
  const heapMiB = heap.stop();
  const turns = shape.turns * tasks;
  return [
    { metric: "wall per turn", unit: "ms", value: wall / turns },
    { metric: "CPU per turn", unit: "ms", value: cpuMs / turns },
    { metric: "peak heap", unit: "MiB", value: heapMiB },
    { metric: "peak RSS", unit: "MiB", value: peakRssMiB() },
  ];
}
