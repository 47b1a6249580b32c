// @ts-check
// The agents this server runs (GET /v1/agents): instructions, model, tools with their input
// schemas and effects, policies, budgets and quotas. Never a secret: the route sends none.
import { ApiError } from "./api.js";
import { el, jsonTree } from "./dom.js";

/**
 * @typedef {{ name: string, description?: string, inputSchema?: unknown, effects?: string, needsApproval?: boolean | "policy" }} AgentTool
 * @typedef {{ name: string, default: boolean, description?: string, instructions?: string, model?: string, tools: AgentTool[], delegates?: boolean, policies?: Record<string, unknown>, budget?: unknown, quotas?: unknown }} AgentInfo
 */

/** Draw every agent into `container`. */
export async function renderAgents(/** @type {HTMLElement} */ container, /** @type {import("./api.js").Api} */ api) {
  /** @type {AgentInfo[]} */
  let agents;
  try {
    agents = (await api("GET", "/v1/agents")).agents;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      container.replaceChildren(
        el("p", { className: "meta" }, "This server does not describe its agents (no GET /v1/agents)."),
      );
      return;
    }
    throw error;
  }
  container.replaceChildren(...agents.map(agentCard));
}

function agentCard(/** @type {AgentInfo} */ agent) {
  const approval = (/** @type {AgentTool} */ tool) =>
    tool.needsApproval === true ? "needs approval" : tool.needsApproval === "policy" ? "approval by policy" : undefined;
  return el(
    "article",
    { className: "agent", dataset: { agent: agent.name } },
    el("h3", {}, agent.name, agent.default ? el("span", { className: "badge" }, "default") : undefined),
    agent.description === undefined ? undefined : el("p", {}, agent.description),
    el("p", { className: "meta" }, `Model: ${agent.model ?? "the server's default"}`),
    agent.instructions === undefined
      ? undefined
      : el("details", {}, el("summary", {}, "Instructions"), el("pre", {}, agent.instructions)),
    el("h4", {}, `Tools (${agent.tools.length})`),
    el(
      "ul",
      { className: "agent-tools" },
      ...agent.tools.map((tool) =>
        el(
          "li",
          {},
          el("strong", {}, tool.name),
          [tool.effects === undefined ? undefined : `effects: ${tool.effects}`, approval(tool)].filter(Boolean)
            .length === 0
            ? undefined
            : el(
                "span",
                { className: "meta" },
                ` (${[tool.effects === undefined ? undefined : `effects: ${tool.effects}`, approval(tool)].filter(Boolean).join(", ")})`,
              ),
          tool.description === undefined ? undefined : el("p", {}, tool.description),
          tool.inputSchema === undefined
            ? undefined
            : el("details", {}, el("summary", {}, "Input schema"), jsonTree(tool.inputSchema)),
        ),
      ),
    ),
    agent.delegates === true ? el("p", { className: "meta" }, "Delegates to other agents (child tasks).") : undefined,
    agent.policies === undefined || Object.keys(agent.policies).length === 0
      ? undefined
      : el("details", { open: true }, el("summary", {}, "Policies"), jsonTree(agent.policies)),
    agent.budget === undefined ? undefined : el("details", {}, el("summary", {}, "Budget"), jsonTree(agent.budget)),
    agent.quotas === undefined ? undefined : el("details", {}, el("summary", {}, "Quotas"), jsonTree(agent.quotas)),
  );
}
