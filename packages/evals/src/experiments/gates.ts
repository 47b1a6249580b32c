/**
 * Gates: the conditions an experiment must meet to pass, as a CI step (`--gate "exact-match >= 0.9"`).
 * A gate compares a scorer's mean with a threshold; a scorer that scored no case fails its gate
 * (nothing measured is not a pass).
 */
import { ConfigError } from "@sema-agent/core/protocol";
import type { ExperimentResult } from "./experiment-results.ts";

/** One gate: `scorer op threshold`. */
export interface Gate {
  scorer: string;
  op: ">=" | ">" | "<=" | "<" | "==";
  threshold: number;
}

/** A gate that failed, with the mean it saw. */
export interface GateFailure {
  gate: Gate;
  /** The scorer's mean, or `undefined` when it scored no case. */
  mean: number | undefined;
  /** `exact-match mean 0.82 is not >= 0.9`. */
  message: string;
}

const GATE = /^\s*([A-Za-z][A-Za-z0-9_.:-]{0,63})\s*(>=|<=|==|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/;

/** A gate from its text: `<scorer> <op> <number>`, op one of `>= > <= < ==`; `ConfigError` otherwise. */
export function parseGate(text: string): Gate {
  const match = GATE.exec(text);
  const threshold = Number(match?.[3]);
  if (match === null || !Number.isFinite(threshold))
    throw new ConfigError("gate", [
      { path: "", message: `${JSON.stringify(text)} is not "<scorer> <op> <number>" with op one of >= > <= < ==` },
    ]);
  return { scorer: match[1] as string, op: match[2] as Gate["op"], threshold };
}

function holds(mean: number, gate: Gate): boolean {
  switch (gate.op) {
    case ">=":
      return mean >= gate.threshold;
    case ">":
      return mean > gate.threshold;
    case "<=":
      return mean <= gate.threshold;
    case "<":
      return mean < gate.threshold;
    case "==":
      return mean === gate.threshold;
  }
}

/** The gates `result` fails (none: it passes). A gate on a scorer the experiment does not have is refused. */
export function checkGates(result: ExperimentResult, gates: readonly Gate[]): GateFailure[] {
  const unknown = gates.filter((gate) => !result.scorers.includes(gate.scorer));
  if (unknown.length > 0)
    throw new ConfigError(
      "gate",
      unknown.map((gate) => ({
        path: gate.scorer,
        message: `is not a scorer of the experiment (${result.scorers.join(", ")})`,
      })),
    );
  const failures: GateFailure[] = [];
  for (const gate of gates) {
    const mean = result.means[gate.scorer];
    if (mean !== undefined && holds(mean, gate)) continue;
    const seen = mean === undefined ? "scored no case" : `mean ${round(mean)} is not ${gate.op} ${gate.threshold}`;
    failures.push({ gate, mean, message: `${gate.scorer} ${seen}` });
  }
  return failures;
}

/** A value as tables show it: at most 3 decimals. */
export function round(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
