// `npm test`: the agent on a scripted model, so the test runs offline and gives the same answer
// every time. Node's own test runner finds every *.test.ts file.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createAgent } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { assistant } from "./sema.config.ts";

test("the agent calls get_weather and answers from its result", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "get_weather", input: { city: "Oslo" } }] },
    { text: "It is 4 °C in Oslo." },
  ]);
  const result = await createAgent({ ...assistant, model }).run("How cold is it in Oslo?");
  assert.equal(result.status, "completed");
  assert.equal(result.text, "It is 4 °C in Oslo.");
  assert.equal(result.steps[0]?.toolCalls[0]?.result?.content, '{"city":"Oslo","celsius":4}');
  model.assertConsumed();
});

test("a city the tool does not know comes back to the model as an error, not a crash", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "get_weather", input: { city: "Atlantis" } }] },
    { text: "I have no weather for Atlantis." },
  ]);
  const result = await createAgent({ ...assistant, model }).run("Weather in Atlantis?");
  assert.equal(result.status, "completed");
  assert.match(result.steps[0]?.toolCalls[0]?.result?.content ?? "", /no weather for Atlantis/);
});
