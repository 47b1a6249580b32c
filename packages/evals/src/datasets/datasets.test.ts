import { defineTool, MemoryStore, runLeg, sendInput, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DatasetCase } from "./dataset-case.ts";
import { caseFromTask, datasetFromTasks } from "./dataset-from-tasks.ts";
import { listDatasets, loadDataset, saveDataset } from "./dataset-records.ts";
import { datasetDigest, formatDataset, parseDataset } from "./parse-dataset.ts";

/** The same JSON with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversed(v)]),
  );
}

const FILE = [
  '{"id":"capital","input":"Capital of Portugal?","expected":"Lisbon"}',
  "",
  '{"input":"List two colours","expected":{"colours":["red","blue"]},"metadata":{"suite":"json"}}',
  '{"id":"steered","input":"Plan a trip","inputs":[{"text":"Make it cheap","afterTurn":1}]}',
  "",
].join("\n");

describe("parseDataset", () => {
  it("reads cases line by line: ids given or line-<n>, defaults applied, blank lines skipped", async () => {
    const { cases, digest } = await parseDataset(FILE);
    expect(cases.map((c) => c.id)).toEqual(["capital", "line-3", "steered"]);
    expect(cases[1]).toMatchObject({ expected: { colours: ["red", "blue"] }, metadata: { suite: "json" } });
    expect(cases[2]?.inputs).toEqual([{ text: "Make it cheap", carrier: "steer", source: "user", afterTurn: 1 }]);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a bad line, naming it and why", async () => {
    const bad: [string, string][] = [
      ['{"input":"ok"}\n{not json', "dataset, line 2: not JSON"],
      ['{"expected":"x"}', "dataset, line 1: input:"],
      ['{"input":""}', "dataset, line 1: input: input is the task's objective"],
      ['{"input":"a","id":"x"}\n{"input":"b","id":"x"}', "dataset, line 2: case id x is taken by line 1"],
      ['{"input":"a","inputs":[{"text":"t","carrier":"interrupt"}]}', "dataset, line 1: inputs.0.carrier"],
      ['{"input":"a","id":"../etc"}', "dataset, line 1: id:"],
      ['{"input":"a","extra":1}', "dataset, line 1:"],
      ['{"input":"a","attachments":[{"mediaType":"nope","data":"AA=="}]}', "dataset, line 1: attachments.0.mediaType"],
      ["", "dataset: no cases"],
      ["[1,2]", "dataset, line 1:"],
    ];
    for (const [text, message] of bad) await expect(parseDataset(text), text).rejects.toThrow(message);
  });

  it("reads back what it writes, with the same digest whatever the file's spacing (property)", async () => {
    const text = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== "");
    const caseArb = fc.record(
      {
        input: text,
        expected: fc.option(fc.oneof(fc.string(), fc.jsonValue()), { nil: undefined }),
        metadata: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue()), { nil: undefined }),
      },
      { requiredKeys: ["input"] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 8 }), async (raw) => {
        const lines = raw.map((c, i) => JSON.stringify({ id: `c${i}`, ...JSON.parse(JSON.stringify(c)) }));
        const first = await parseDataset(lines.join("\n"));
        const again = await parseDataset(formatDataset(first.cases));
        expect(again.cases).toEqual(first.cases);
        expect(again.digest).toBe(first.digest);
        // Spacing and key order do not change the digest.
        const spaced = first.cases.map((c) => JSON.stringify(reversed(c), null, 2).replace(/\n/g, " "));
        expect((await parseDataset(spaced.join("\n"))).digest).toBe(first.digest);
      }),
      { numRuns: 50 },
    );
  });

  it("gives another digest for other cases", async () => {
    const a = await parseDataset('{"input":"a"}');
    const b = await parseDataset('{"input":"b"}');
    expect(a.digest).not.toBe(b.digest);
    expect(a.digest).toBe(await datasetDigest(a.cases));
  });
});

describe("datasetFromTasks", () => {
  it("makes a case of a recorded task: its objective, later inputs as they arrived, its answer", async () => {
    const store = new MemoryStore();
    let taskId = "";
    // A person's steer arrives while the first turn's tool runs.
    const ask = defineTool({
      name: "ask_budget",
      description: "Ask for the budget",
      inputSchema: { type: "object", properties: {} },
      execute: async () => {
        await sendInput(store, taskId, { text: "Make it cheap" });
        return "asked";
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "ask_budget", input: {} }] },
      { text: "A cheap trip to Porto." },
    ]);
    taskId = await startTask(store, { objective: "Plan a trip", principal: "acme" });
    await runLeg({ store, agent: { model, tools: [ask] } }, taskId);
    const c = await caseFromTask(store, taskId, { principal: "acme" });
    expect(c).toEqual({
      id: `task-${taskId}`,
      input: "Plan a trip",
      expected: "A cheap trip to Porto.",
      inputs: [{ text: "Make it cheap", carrier: "steer", source: "user", afterTurn: 1 }],
      metadata: { fromTask: taskId },
    } satisfies DatasetCase);
    const dataset = await datasetFromTasks(store, [taskId]);
    expect(dataset.cases).toHaveLength(1);
    await expect(caseFromTask(store, taskId, { principal: "mallory" })).rejects.toMatchObject({ code: "TaskNotFound" });
  });

  it("gives a task that did not complete no expected answer", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Not yet", principal: "acme" });
    expect((await caseFromTask(store, taskId)).expected).toBeUndefined();
  });
});

describe("saved datasets", () => {
  it("keep every version per name and principal, and read back checked", async () => {
    const store = new MemoryStore();
    const first = await saveDataset(store, "acme", "faq", await parseDataset('{"input":"a"}'));
    const second = await saveDataset(store, "acme", "faq", await parseDataset(FILE));
    expect([first.version, second.version]).toEqual([1, 2]);
    expect((await loadDataset(store, "acme", "faq")).cases).toHaveLength(3);
    expect((await loadDataset(store, "acme", "faq", 1)).digest).toBe(first.digest);
    expect(await listDatasets(store, "acme")).toMatchObject([{ name: "faq", version: 2, meta: { cases: 3 } }]);
    await expect(loadDataset(store, "bob", "faq")).rejects.toMatchObject({ code: "RecordNotFound" });
    expect(await listDatasets(store, "bob")).toEqual([]);
    await expect(saveDataset(store, "acme", "no/slash", first)).rejects.toMatchObject({ code: "InvalidInput" });
  });
});
