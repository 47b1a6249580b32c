// Each kind of park has its code, none of them a code a finished or mistaken run exits with.
import { parkReasonSchema } from "@sema-agent/core/protocol";
import { describe, expect, it } from "vitest";
import { parkedExitCode } from "./exit-codes.ts";
import { USAGE } from "./main.ts";

describe("parkedExitCode", () => {
  it("gives every park reason a code from 3 to 7, documented in USAGE", () => {
    const codes = parkReasonSchema.options.map((reason) => [reason, parkedExitCode(reason)] as const);
    for (const [, code] of codes) expect(code).toBeGreaterThanOrEqual(3);
    for (const [, code] of codes) expect(code).toBeLessThanOrEqual(7);
    expect(Object.fromEntries(codes)).toMatchObject({ approval: 3, model: 4, budget: 5, quota: 5, interrupt: 6 });
    for (const code of [3, 4, 5, 6, 7]) expect(USAGE).toContain(`${code} `);
    expect(USAGE).toMatch(/3 waiting for approval, 4 the model\s+unreachable, 5 a budget or quota/);
  });
});
