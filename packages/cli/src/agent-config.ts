/**
 * Agents from a config file in the working directory (design §7): `sema.config.ts` / `.js` / `.mjs`
 * (a default export `{ agents: { name: Agent }, defaultAgent? }`, full control in code) or
 * `sema.config.json` (declarative: model, instructions, which built-in tools, which need
 * approval, limits). Without one, the CLI's default agent. Either is checked strictly when it is
 * loaded: an unknown key (named), a missing model, a tool without a schema or `execute` is a
 * `ConfigError`, which `sema serve` and `sema worker` report at start with exit code 2.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_PRICES } from "@sema-agent/ai-sdk";
import { type Agent, validateAgent } from "@sema-agent/core";
import { callerProviderOptionsSchema, checkConfig, provenancePolicySchema } from "@sema-agent/core/protocol";
import { checkQuotaPrices, type QuotaSettings, quotaSettingsSchema } from "@sema-agent/core/quotas";
import type { ApproverRule } from "@sema-agent/server";
import { z } from "zod";
import { UsageError } from "./context.ts";
import { DEFAULT_AGENT_NAME, defaultAgent } from "./default-agent.ts";
import { modelFromSpec } from "./model-spec.ts";
import { type ProtocolName, protocolListSchema } from "./served-protocols.ts";
import type { ToolSetup } from "./tool-roots.ts";
import { createFileTools } from "./tools/index.ts";

export interface AgentSet {
  agents: Record<string, Agent>;
  defaultAgent: string;
  /**
   * Per agent name, who may decide its approvals under `sema serve` when it is not the default
   * (the `approver` role): `any-verified-actor` lets any verified token of the task's principal.
   */
  approvers: Record<string, ApproverRule>;
  /**
   * Quotas per principal (`quotas` of the config), enforced by `sema serve` and `sema worker`;
   * their `prices` default to `DEFAULT_PRICES` of `@sema-agent/ai-sdk` (a config's own win).
   */
  quotas?: QuotaSettings;
  /** The protocols `sema serve` mounts beside `/v1` (`protocols` of the config); default all. */
  protocols?: ProtocolName[];
  /** `sema serve`'s own settings (`serve` of the config). */
  serve?: ServeConfig;
  /** Where they came from, for the start-up line. */
  source: string;
}

const CODE_FILES = ["sema.config.ts", "sema.config.mjs", "sema.config.js"];
const JSON_FILE = "sema.config.json";

const approverRule = z.enum(["approver-role", "any-verified-actor"]);

/**
 * `sema serve`'s settings in the config: `traceContent` puts the task's texts (prompts, answers,
 * tool inputs and outputs) in `GET /v1/tasks/{taskId}/trace`; default false.
 */
const serveConfigSchema = z.strictObject({ traceContent: z.boolean().exactOptional() });
/** `sema serve`'s settings in the config (see `serveConfigSchema`). */
export type ServeConfig = z.infer<typeof serveConfigSchema>;

const jsonAgent = z.strictObject({
  model: z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'is missing: set it to a model spec, e.g. "anthropic:claude-sonnet-4-5" or "openai:gpt-5-mini"'
          : 'must be a model spec string, e.g. "anthropic:claude-sonnet-4-5"',
    })
    .min(1),
  instructions: z.string().exactOptional(),
  /** Built-in tool names; default all five. */
  tools: z.array(z.enum(["read_file", "list_dir", "search_text", "write_file", "append_file"])).exactOptional(),
  /** Tools a person must approve before each call; default the two that write. */
  approve: z.array(z.string()).exactOptional(),
  maxTurns: z.number().int().positive().exactOptional(),
  maxTokens: z.number().int().positive().exactOptional(),
  maxCostUsd: z.number().positive().exactOptional(),
  /** Who may decide this agent's approvals under `sema serve`; default `approver-role`. */
  approvers: approverRule.exactOptional(),
  /**
   * What happens to calls made with untrusted content in view or carrying it (docs/guide/security.md);
   * default: tainted calls of the writing tools need approval, whatever `approve` says.
   */
  provenancePolicy: provenancePolicySchema.exactOptional(),
  /**
   * The provider option keys a caller of `sema serve` may set on a task, by provider; default
   * none (docs/guide/security.md).
   */
  callerProviderOptions: callerProviderOptionsSchema.exactOptional(),
});

const jsonConfig = z.strictObject({
  agents: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i), jsonAgent),
  defaultAgent: z.string().exactOptional(),
  quotas: quotaSettingsSchema.exactOptional(),
  /** The protocols `sema serve` mounts beside `/v1`; default all of them. */
  protocols: protocolListSchema.exactOptional(),
  serve: serveConfigSchema.exactOptional(),
});

// What a code config's default export may hold; each agent is then checked by `validateAgent`.
const codeConfig = z.strictObject({
  agents: z.record(z.string(), z.unknown()),
  defaultAgent: z.string().optional(),
  approvers: z.unknown().optional(),
  quotas: quotaSettingsSchema.optional(),
  protocols: protocolListSchema.optional(),
  serve: serveConfigSchema.optional(),
});

function fromJson(
  raw: z.infer<typeof jsonAgent>,
  tools: ToolSetup,
  env: Readonly<Record<string, string | undefined>>,
): Agent {
  const wanted = new Set(raw.tools ?? ["read_file", "list_dir", "search_text", "write_file", "append_file"]);
  const approve = new Set(raw.approve ?? ["write_file", "append_file"]);
  const agent: Agent = {
    model: modelFromSpec(raw.model, env),
    tools: createFileTools(tools.root, tools.options).filter((tool) => wanted.has(tool.name)),
  };
  if (raw.instructions !== undefined) agent.instructions = raw.instructions;
  if (raw.provenancePolicy !== undefined) agent.provenancePolicy = raw.provenancePolicy;
  if (raw.callerProviderOptions !== undefined) agent.callerProviderOptions = raw.callerProviderOptions;
  if (approve.size > 0) agent.approvalPolicy = (call) => approve.has(call.name);
  const budget: NonNullable<Agent["budget"]> = {};
  if (raw.maxTurns !== undefined) budget.maxTurns = raw.maxTurns;
  if (raw.maxTokens !== undefined) budget.maxTokens = raw.maxTokens;
  if (raw.maxCostUsd !== undefined) budget.maxCostUsd = raw.maxCostUsd;
  if (Object.keys(budget).length > 0) agent.budget = budget;
  return agent;
}

/**
 * `agent` (and the sub-agents it delegates to) with the vendors' list prices under its own in
 * `budget.prices`: core carries no price table, so a cost limit under `sema` counts as it always did.
 */
export function withDefaultPrices(agent: Agent, seen = new Map<Agent, Agent>()): Agent {
  const known = seen.get(agent);
  if (known !== undefined) return known;
  const priced: Agent = {
    ...agent,
    budget: { ...agent.budget, prices: { ...DEFAULT_PRICES, ...agent.budget?.prices } },
  };
  // Registered before its sub-agents, so an agent that delegates to itself stays one agent.
  seen.set(agent, priced);
  const subAgents = agent.delegation?.agents;
  if (agent.delegation !== undefined && subAgents !== undefined)
    priced.delegation = {
      ...agent.delegation,
      agents: Object.fromEntries(Object.entries(subAgents).map(([name, sub]) => [name, withDefaultPrices(sub, seen)])),
    };
  return priced;
}

function pricedAll(agents: Record<string, Agent>): Record<string, Agent> {
  const seen = new Map<Agent, Agent>();
  return Object.fromEntries(Object.entries(agents).map(([name, agent]) => [name, withDefaultPrices(agent, seen)]));
}

/** A code config's `serve`, its absent keys left out. */
function serveConfigOf(serve: { traceContent?: boolean | undefined }): ServeConfig {
  return serve.traceContent === undefined ? {} : { traceContent: serve.traceContent };
}

function checkDefault(agents: Record<string, unknown>, requested: string | undefined, source: string): string {
  const names = Object.keys(agents);
  const chosen = requested ?? (names.length === 1 ? names[0] : undefined);
  if (chosen === undefined || !(chosen in agents))
    throw new UsageError(`${source}: say which agent is the default (defaultAgent), one of ${names.join(", ")}`);
  return chosen;
}

/** The config's quotas with `DEFAULT_PRICES` under its own prices, or nothing without quotas. */
function pricedQuotas(quotas: QuotaSettings | undefined): { quotas?: QuotaSettings } {
  if (quotas === undefined) return {};
  return { quotas: { ...quotas, prices: { ...DEFAULT_PRICES, ...quotas.prices } } };
}

/**
 * `set` once its dollar quotas are known to bind: a `ConfigError` (exit 2) naming each model an
 * agent calls that has no price in the quotas' prices (`DEFAULT_PRICES` under the config's own).
 */
function quotaPricesChecked(set: AgentSet): AgentSet {
  checkQuotaPrices(set.quotas, Object.entries(set.agents), set.source);
  return set;
}

/**
 * Only the quotas of the config in `cwd` (`sema usage`, which runs no agent): checked like the
 * whole config's, with `DEFAULT_PRICES` under their prices; undefined without a config or quotas.
 */
export async function loadQuotas(cwd: string): Promise<QuotaSettings | undefined> {
  for (const name of CODE_FILES) {
    const path = join(cwd, name);
    if (!existsSync(path)) continue;
    const loaded = (await import(pathToFileURL(path).href)) as { default?: { quotas?: unknown } };
    const quotas = loaded.default?.quotas;
    return quotas === undefined
      ? undefined
      : pricedQuotas(checkConfig(quotaSettingsSchema, quotas, `${name} quotas`)).quotas;
  }
  const jsonPath = join(cwd, JSON_FILE);
  if (!existsSync(jsonPath)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(jsonPath, "utf8"));
  } catch (error) {
    throw new UsageError(`${JSON_FILE}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const quotas = typeof raw === "object" && raw !== null ? (raw as { quotas?: unknown }).quotas : undefined;
  return quotas === undefined
    ? undefined
    : pricedQuotas(checkConfig(quotaSettingsSchema, quotas, `${JSON_FILE} quotas`)).quotas;
}

/**
 * The agents to serve: from the config file in `cwd`, or the default agent on `modelSpec`. The
 * built-in tools of the default and JSON-configured agents work on `tools` (default: `cwd`); a
 * code config builds its own tools.
 */
export async function loadAgents(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  modelSpec: () => string,
  tools: ToolSetup = { root: cwd, options: {}, label: cwd },
): Promise<AgentSet> {
  for (const name of CODE_FILES) {
    const path = join(cwd, name);
    if (!existsSync(path)) continue;
    const loaded = (await import(pathToFileURL(path).href)) as {
      default?: {
        agents?: Record<string, Agent>;
        defaultAgent?: string;
        approvers?: unknown;
        quotas?: unknown;
        protocols?: unknown;
        serve?: unknown;
      };
    };
    const config = loaded.default;
    if (config?.agents === undefined || Object.keys(config.agents).length === 0)
      throw new UsageError(`${name}: the default export needs { agents: { name: agent } }`);
    // Unknown keys and each agent (a missing model, a tool without execute) as a ConfigError, exit 2.
    const checked = checkConfig(codeConfig, config, name);
    for (const [agentName, agent] of Object.entries(config.agents)) validateAgent(agent, name, `agents.${agentName}`);
    const approvers = z.record(z.string(), approverRule).optional().safeParse(config.approvers);
    if (!approvers.success)
      throw new UsageError(`${name}: approvers: each agent's rule is "approver-role" or "any-verified-actor"`);
    return quotaPricesChecked({
      agents: pricedAll(config.agents),
      defaultAgent: checkDefault(config.agents, config.defaultAgent, name),
      approvers: approvers.data ?? {},
      ...pricedQuotas(checked.quotas),
      ...(checked.protocols === undefined ? {} : { protocols: checked.protocols }),
      ...(checked.serve === undefined ? {} : { serve: serveConfigOf(checked.serve) }),
      source: name,
    });
  }
  const jsonPath = join(cwd, JSON_FILE);
  if (existsSync(jsonPath)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(jsonPath, "utf8"));
    } catch (error) {
      throw new UsageError(`${JSON_FILE}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Every problem at once, unknown keys by name: a ConfigError (exit 2).
    const config = checkConfig(jsonConfig, raw, JSON_FILE);
    // Which agent is the default is checked before any model is resolved.
    const defaultName = checkDefault(config.agents, config.defaultAgent, JSON_FILE);
    const agents = Object.fromEntries(
      Object.entries(config.agents).map(([name, raw]) => [name, fromJson(raw, tools, env)]),
    );
    const approvers = Object.fromEntries(
      Object.entries(config.agents).flatMap(([name, raw]) =>
        raw.approvers === undefined ? [] : [[name, raw.approvers]],
      ),
    );
    return quotaPricesChecked({
      agents: pricedAll(agents),
      defaultAgent: defaultName,
      approvers,
      ...pricedQuotas(config.quotas),
      ...(config.protocols === undefined ? {} : { protocols: config.protocols }),
      ...(config.serve === undefined ? {} : { serve: config.serve }),
      source: JSON_FILE,
    });
  }
  const spec = modelSpec();
  return {
    agents: pricedAll({
      [DEFAULT_AGENT_NAME]: defaultAgent(modelFromSpec(spec, env), tools.root, { tools: tools.options }),
    }),
    defaultAgent: DEFAULT_AGENT_NAME,
    approvers: {},
    source: `the default agent on ${spec}`,
  };
}
