/**
 * Helpers shared by every benchmark in bench/: timing, memory, the results table, the machine
 * description, isolated child runs and the realistic event workload.
 */

export { benchApp } from "./bench-app.ts";
export { type ChildOptions, RESULT_PREFIX, reportToParent, runInChild } from "./child.ts";
export { describeMachine, formatMachine, type Machine } from "./machine.ts";
export { type Summary, summarize } from "./stats.ts";
export { formatNumber, formatTable, type ResultRow } from "./table.ts";
export { forceGc, type MemoryReading, memoryAfterGc, perSecond, timed } from "./timing.ts";
export { meanJsonBytes, realisticEvents } from "./workload.ts";
