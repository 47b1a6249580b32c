import { describe, expect, it } from "vitest";
import { HttpError } from "../http-error.ts";
import { MemoryTokenStore } from "./memory-token-store.ts";
import { createTokenIngress } from "./token-ingress.ts";

describe("createTokenIngress", () => {
  it("mints a verified actor from the token and an unverified one from a relayed speaker", async () => {
    const tokens = new MemoryTokenStore();
    const { token, record } = await tokens.create({ principal: "acme", actorId: "frontend", roles: ["approver"] });
    const ingress = createTokenIngress(tokens);
    const own = await ingress.authenticate({ authorization: `Bearer ${token}`, speaker: undefined });
    expect(own).toMatchObject({
      principal: "acme",
      tokenId: record.tokenId,
      actor: { id: "frontend", verified: true, issuer: "sema-token" },
    });
    expect([...own.roles]).toEqual(["approver"]);
    const relayed = await ingress.authenticate({ authorization: `bearer  ${token}`, speaker: "Ana" });
    expect(relayed.actor).toEqual({ id: "Ana", verified: false, issuer: "frontend" });
  });

  it("is a 401 without a valid bearer token", async () => {
    const ingress = createTokenIngress(new MemoryTokenStore());
    for (const authorization of [undefined, "", "Bearer", "Token abc", "Bearer sema_000000000000_x"]) {
      const error = await ingress.authenticate({ authorization, speaker: undefined }).catch((e: unknown) => e);
      expect(error, String(authorization)).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(401);
    }
  });

  it("tells an open response whether its token still holds, from one lookup per interval for all of them", async () => {
    const tokens = new MemoryTokenStore();
    const { token, record } = await tokens.create({ principal: "acme" });
    let lookups = 0;
    const verify = tokens.verify.bind(tokens);
    tokens.verify = (presented) => {
      lookups++;
      return verify(presented);
    };
    let now = 0;
    const ingress = createTokenIngress(tokens, { now: () => now, validityCacheMs: 250 });
    const callers = await Promise.all(
      Array.from({ length: 10 }, () => ingress.authenticate({ authorization: `Bearer ${token}`, speaker: undefined })),
    );
    lookups = 0;
    const ask = () => Promise.all(callers.map((caller) => caller.stillValid?.()));
    expect(await ask()).toEqual(Array(10).fill(true));
    expect(lookups).toBe(1);
    await tokens.revoke(record.tokenId);
    now = 249;
    expect(await ask()).toEqual(Array(10).fill(true));
    now = 250;
    expect(await ask()).toEqual(Array(10).fill(false));
    expect(lookups).toBe(2);
  });
});
