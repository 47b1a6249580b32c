/** `createAgent` takes the harness's clock, and asks it whether a task wants another leg. */
import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../testing/scripted-model.ts";
import { createAgent } from "./create-agent.ts";

describe("createAgent: clock", () => {
  it("runs on through a model park once its clock says the park's timer is due", async () => {
    // Far from the wall clock: by Date.now the timer would not be due for years.
    let now = Date.parse("2031-01-01T00:00:00.000Z");
    const model = new ScriptedModel([
      { error: { message: "connection refused", code: "connection", isRetryable: true } },
      { text: "back up" },
    ]);
    const agent = createAgent({
      model,
      modelBackoff: { baseMs: 1000 },
      clock: () => now,
      // The backoff passes the moment the leg parks.
      emit: (event) => {
        if (event.type === "leg_ended" && event.reason === "parked:model") now += 1000;
      },
    });
    expect(await agent.run("x")).toMatchObject({ status: "completed", text: "back up" });
    model.assertConsumed();
  });
});
