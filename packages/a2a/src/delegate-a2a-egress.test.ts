import { describe, expect, it } from "vitest";
import { delegateA2A } from "./delegate-a2a.ts";

describe("delegateA2A and the provenance policy", () => {
  it("is egress to the agent's host, its answer untrusted, its remote ids not classified", () => {
    const tool = delegateA2A({ url: "https://Agents.Partner.example:8443/a2a" });
    expect(tool).toMatchObject({
      egress: true,
      egressHosts: ["agents.partner.example"],
      untrustedOutput: true,
      effects: "external",
      untaintedInputs: ["/taskId", "/contextId"],
    });
  });
});
