// The root's export list, pinned: the root is what an application uses, and changing it means
// changing these lists on purpose (a store helper belongs on ./store-kit, an event schema on
// ./protocol, anything that needs Node on ./node). The types are read from the entry's source,
// the values from the module itself.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as root from "./index.ts";
import * as node from "./node/index.ts";

const VALUES = [
  "DEFAULTS",
  "DEFAULT_PROVENANCE_RULES",
  "LABEL_ID_MAX_CHARS",
  "MemoryStore",
  "SemaError",
  "attrEscape",
  "buildAppliedHumanInputEvent",
  "buildHumanInputEvent",
  "cancel",
  "checkQuotaPrices",
  "childAgent",
  "classifyToolCall",
  "costUsd",
  "createAgent",
  "decideApproval",
  "defaultCanApprove",
  "defineTool",
  "delimitUntrusted",
  "effectsOf",
  "fold",
  "frameMidTurnUserInput",
  "inlineUntrusted",
  "interrupt",
  "isSemaError",
  "isTerminal",
  "jsonSchema",
  "loadTaskOverview",
  "loadTaskState",
  "offerExternalTools",
  "overviewOf",
  "parseTraceContext",
  "priceOf",
  "principalUsage",
  "projectHumanInput",
  "provenanceAt",
  "provenanceRule",
  "quotaGateFor",
  "quotaResolver",
  "quotaSettingsSchema",
  "quotaUsage",
  "quotasOf",
  "quotasSchema",
  "requestResume",
  "runLeg",
  "sanitizeHumanText",
  "sendInput",
  "speakerLabel",
  "startTask",
  "storeQuotaGate",
  "streamLeg",
  "submitToolResult",
  "tightestQuotas",
  "usageSinceMs",
  "validateAgent",
  "wake",
  "wakeAt",
  "withRetry",
];

const TYPES = [
  "ActorAssertion",
  "Agent",
  "AgentDefinition",
  "AgentHandle",
  "AgentHooks",
  "AgentHostOptions",
  "AgentInput",
  "AgentStream",
  "ApprovalCheck",
  "ApprovalContext",
  "ApprovalState",
  "ApproveOptions",
  "Attachment",
  "BeforeToolDecision",
  "Budget",
  "BudgetLimit",
  "CallClassification",
  "CallProvenance",
  "CanApprove",
  "ClassifiedCall",
  "CompactionSettings",
  "ContentData",
  "ContentLimits",
  "ContentOptions",
  "ContentPart",
  "ContinueOptions",
  "CoreCarrier",
  "DecideApprovalOptions",
  "Decision",
  "DeepReadonly",
  "DelegationSettings",
  "DelimitUntrustedOptions",
  "EffectRules",
  "Emit",
  "EntryProvenance",
  "ExternalToolResult",
  "FilePart",
  "FinishReason",
  "HarnessOptions",
  "HeldSpan",
  "HookContext",
  "HookFeedback",
  "HookName",
  "HookSettings",
  "Hooks",
  "HumanInputDelivery",
  "HumanInputEvent",
  "HumanInputFrame",
  "HumanInputPolicy",
  "HumanInputSource",
  "ImagePart",
  "InferOutput",
  "JsonResponseFormat",
  "JsonSchemaObject",
  "JsonSchemaValidator",
  "JsonValue",
  "Lane",
  "Lease",
  "LeaseHolder",
  "LegOptions",
  "LegOutcome",
  "LegStream",
  "Model",
  "ModelFailure",
  "ModelFailureCode",
  "ModelPart",
  "ModelPrice",
  "ModelRequest",
  "OutputOf",
  "OutputSchema",
  "ParkReason",
  "PendingApproval",
  "PrincipalUsage",
  "ProvenanceContext",
  "ProvenanceOptions",
  "ProvenancePolicy",
  "ProvenanceRule",
  "ProvenanceSource",
  "QuotaCall",
  "QuotaCallEstimate",
  "QuotaGate",
  "QuotaName",
  "QuotaSettings",
  "QuotaTokenSource",
  "QuotaUsage",
  "QuotaVerdict",
  "Quotas",
  "RandomBytes",
  "RetryPolicy",
  "RunOptions",
  "RunResult",
  "RunStep",
  "RunToolCall",
  "SemaErrorCode",
  "SendInputOptions",
  "SendOptions",
  "SentInput",
  "SpanProvenance",
  "StandardIssue",
  "StandardResult",
  "StandardSchemaV1",
  "StartTaskInput",
  "Store",
  "StoreClock",
  "StoreQuotaGateOptions",
  "StoredEvent",
  "StreamEvent",
  "TaintMatch",
  "TaskEvent",
  "TaskEventIdentity",
  "TaskOverview",
  "TaskRecord",
  "TaskState",
  "TaskStatus",
  "TaskSummary",
  "TextPart",
  "Tool",
  "ToolCall",
  "ToolCallOf",
  "ToolCallRef",
  "ToolChoice",
  "ToolContext",
  "ToolDefinition",
  "ToolEffects",
  "ToolInputOf",
  "ToolInputSchema",
  "ToolOutput",
  "ToolResultStatus",
  "ToolSpec",
  "TraceContext",
  "TranscriptEntry",
  "Usage",
  "UserPart",
  "WakeAtOptions",
];

/** Every name an entry file exports, types included: its `export { … }` lists and the declarations of `export type * from` modules. */
function exportedNames(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const names = new Set<string>();
  for (const [, list = ""] of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm))
    for (const item of list.split(",")) {
      const name = item.trim().replace(/^type\s+/, "");
      if (name !== "") names.add(name);
    }
  for (const [, from = ""] of text.matchAll(/^export\s+type\s+\*\s+from\s+"([^"]+)"/gm)) {
    const source = readFileSync(join(dirname(file), from), "utf8");
    for (const [, name = ""] of source.matchAll(/^export\s+(?:interface|type|class|function|const)\s+(\w+)/gm))
      names.add(name);
  }
  return [...names].sort();
}

describe("the root's export list", () => {
  it("is the application surface, value by value", () => {
    expect(Object.keys(root).sort()).toEqual(VALUES);
  });

  it("and type by type", () => {
    const all = exportedNames(fileURLToPath(new URL("./index.ts", import.meta.url)));
    expect(all.filter((name) => !VALUES.includes(name))).toEqual(TYPES);
    expect(VALUES.length + TYPES.length).toBe(all.length);
  });

  it("leaves Node to ./node", () => {
    expect(Object.keys(node).sort()).toEqual([
      "holderDiedHere",
      "nodeHolder",
      "nodeHost",
      "processAlive",
      "processSpace",
      "tasksOfDeadHoldersHere",
    ]);
  });
});
