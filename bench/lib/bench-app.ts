/**
 * The API the serving benchmarks measure: `createApp` over their store, a token of principal
 * `bench` with every role, an agent that never runs, and rate limits out of the way.
 */
import type { Store } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry, createApp, createTokenIngress, MemoryTokenStore } from "@sema-agent/server";

export async function benchApp(store: Store): Promise<{ app: ReturnType<typeof createApp>; token: string }> {
  const tokens = new MemoryTokenStore();
  const { token } = await tokens.create({ principal: "bench", actorId: "bench", roles: ["approver", "supervisor"] });
  const app = createApp({
    store,
    agents: createAgentRegistry({ default: { model: new ScriptedModel([]) } }),
    ingress: createTokenIngress(tokens),
    limits: { ratePerMinute: 10_000_000, rateBurst: 1_000_000 },
  });
  return { app, token };
}
