// The package root's export list, pinned: changing what `@sema-agent/evals` offers means changing
// these lists on purpose. Values are read from the module, type names from the entry's source.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as root from "./index.ts";

const VALUES = [
  "ATTACKS",
  "CONDITIONS",
  "DEFAULT_SUITES",
  "ENVIRONMENTS",
  "SCRIPTED_MODELS",
  "anyEnvironment",
  "attackText",
  "banking",
  "callText",
  "cost",
  "escapeRegex",
  "exactMatch",
  "includes",
  "jsonMatch",
  "jsonSchemaValid",
  "latency",
  "llmJudge",
  "regex",
  "tokens",
  "toolTrajectory",
  "turns",
  "environmentsOf",
  "findInstructions",
  "formatTable",
  "limits",
  "mailbox",
  "modelChoice",
  "runInjectionSuite",
  "runNaiveLoop",
  "runSema",
  "scriptedChoice",
  "scriptedModel",
  "workspace",
];
const TYPES = [
  "AnyEnvironment",
  "AttackTemplate",
  "BankingState",
  "ConditionName",
  "ConditionRun",
  "CostOptions",
  "Environment",
  "ExactMatchOptions",
  "ExpectedToolCall",
  "IncludesOptions",
  "InjectionTask",
  "JsonMatchOptions",
  "LatencyOptions",
  "LimitsState",
  "LlmJudgeOptions",
  "LoopInput",
  "MailboxState",
  "ModelChoice",
  "Observation",
  "PlannedCall",
  "Ratio",
  "RegexOptions",
  "ScenarioResult",
  "ScriptedKind",
  "SuiteOptions",
  "SuiteReport",
  "SuiteRow",
  "TokensOptions",
  "ToolTrajectoryOptions",
  "TurnsOptions",
  "UserTask",
  "WorkspaceState",
];

describe("@sema-agent/evals's root", () => {
  it("exports these values and types, nothing else", () => {
    expect(Object.keys(root).sort()).toEqual([...VALUES].sort());
    const text = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
    const names = [...text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)].flatMap(([, list = ""]) =>
      list
        .split(",")
        .map((item) => item.trim().replace(/^type\s+/, ""))
        .filter((name) => name !== ""),
    );
    expect(names.filter((name) => !VALUES.includes(name)).sort()).toEqual(TYPES);
  });
});
