/** `GET /v1/agents`, `GET /v1/agents/{name}`: the agents this server serves, without secrets. */
import { HttpError } from "../http-error.ts";
import { type AnyRouteSpec, route } from "../route.ts";
import { AgentInfo, AgentList, AgentParams } from "../schemas/agents.ts";
import { agentInfo } from "../tasks/agent-info.ts";
import type { RouteDeps } from "./deps.ts";

export function agentRoutes(deps: RouteDeps): AnyRouteSpec[] {
  const { agents } = deps;
  const show = async (name: string, principal: string) => {
    const agent = agents.get(name);
    if (agent === undefined) return undefined;
    return agentInfo(name, agent, {
      isDefault: name === agents.defaultName,
      approvers: deps.approverRuleOf,
      quotas: await deps.quotasFor?.(principal),
    });
  };
  return [
    route({
      method: "get",
      path: "/v1/agents",
      operationId: "listAgents",
      summary: "The agents this server serves: model, tools and their input schemas, policies, limits",
      tag: "agents",
      responses: { 200: { description: "Every served agent, the default one included.", schema: AgentList } },
      errors: [401, 429],
      async handler({ caller, context }) {
        const infos = await Promise.all(agents.names().map((name) => show(name, caller.principal)));
        return context.json({ agents: infos.filter((info) => info !== undefined) });
      },
    }),
    route({
      method: "get",
      path: "/v1/agents/:name",
      operationId: "getAgent",
      summary: "One served agent",
      tag: "agents",
      params: AgentParams,
      responses: { 200: { description: "The agent.", schema: AgentInfo } },
      errors: [400, 401, 404, 429],
      async handler({ params, caller, context }) {
        const info = await show(params.name, caller.principal);
        if (info === undefined)
          throw new HttpError(404, "NotFound", `this server serves no agent named ${params.name}`);
        return context.json(info);
      },
    }),
  ];
}
