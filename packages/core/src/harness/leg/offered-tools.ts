/**
 * What the model is offered: the agent's tools (and `delegate`, when it delegates), then the
 * task's external tools whose names the agent does not use (its own tool of a name wins).
 */
import type { TaskState } from "../../core/fold.ts";
import type { ToolSpec } from "../../ports/model.ts";
import type { ExternalTool } from "../../protocol/task-event.ts";
import type { Agent } from "../agent.ts";
import { delegateSpec } from "../delegation/delegate-tool.ts";
import { toolSpecs } from "../model/model-request.ts";

/** The tool specs of a leg's requests: the agent's built once, the task's external ones when they change. */
export class OfferedTools {
  readonly #specs: ToolSpec[];
  /** The agent's specs plus the task's external tools, for the list they were built from. */
  #withExternal: { from: readonly ExternalTool[]; specs: ToolSpec[] } | undefined;

  constructor(agent: Agent) {
    const tools = agent.tools ?? [];
    const delegation = agent.delegation;
    this.#specs = delegation === undefined ? toolSpecs(tools) : [...toolSpecs(tools), delegateSpec(delegation)];
  }

  /** The specs offered to a request built from `state`. */
  specsFor(state: TaskState): ToolSpec[] {
    const external = state.externalTools;
    if (external === undefined) return this.#specs;
    if (this.#withExternal?.from !== external) {
      const taken = new Set(this.#specs.map((spec) => spec.name));
      const added = external
        .filter((tool) => !taken.has(tool.name))
        .map((tool) => ({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema }));
      this.#withExternal = { from: external, specs: [...this.#specs, ...added] };
    }
    return this.#withExternal.specs;
  }
}
