/**
 * A Sema model id as the GenAI semantic conventions want it: the provider in
 * `gen_ai.provider.name`, the model's own name in `gen_ai.request.model` / `gen_ai.response.model`
 * and in the `chat {model}` span name (`openai:gpt-4o` → `openai` and `gpt-4o`). An id that names no
 * provider is the model's name as it is.
 */

/** The provider and the model's name of a model id (`provider:name` or `provider/name`). */
export interface ModelIdParts {
  provider?: string;
  name: string;
}

const PROVIDER_PREFIX = /^([^:/]+)[:/](.+)$/s;

/** Split a model id at its first `:` or `/` (see the module's note). */
export function splitModelId(id: string): ModelIdParts {
  const found = PROVIDER_PREFIX.exec(id);
  if (found?.[1] === undefined || found[2] === undefined) return { name: id };
  return { provider: found[1], name: found[2] };
}
