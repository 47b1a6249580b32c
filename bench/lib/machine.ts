/** What a result was measured on, printed above every table (numbers without it mean little). */
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from "node:os";

export interface Machine {
  date: string;
  node: string;
  /** `nproc`: the CPUs this process may run on. */
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  /** 1-minute load average at the start: well above 0 means other work shared the CPUs. */
  load1: number;
}

export function describeMachine(): Machine {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    load1: loadavg()[0] ?? 0,
  };
}

export function formatMachine(machine: Machine): string {
  return [
    `date: ${machine.date}`,
    `node: ${machine.node}, nproc: ${machine.cpus} (${machine.cpuModel}), memory: ${machine.memoryGiB} GiB, ${machine.os}`,
    `load average (1 min) at start: ${machine.load1.toFixed(2)}`,
  ].join("\n");
}
