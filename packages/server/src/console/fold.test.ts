/**
 * The console's one fold (`console/fold.js`, the module the browser loads): each person's message
 * once, the assistant's turns, tool calls with their input, output and approval, the result, the
 * usage, and the timeline's legs; and, for any log, an `add` that reports exactly what it touched
 * (a view redraws those parts and nothing else).
 */
import { priceOf as corePriceOf, costUsd, type ModelPrice, type StoredEvent, type Usage } from "@sema-agent/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { costOf, priceOf, TaskFold } from "../../console/fold.js";
import { taskLog } from "./fold-arbitraries.ts";

let seq = 0;
const at = (s: number) => new Date(Date.parse("2026-12-01T00:00:00.000Z") + s * 1000).toISOString();
const ev = (event: Record<string, unknown>) => {
  seq += 1;
  return { taskId: "t1", seq, at: at(seq), ...event } as unknown as StoredEvent;
};
const dana = { id: "dana", verified: true };
const digest = "b".repeat(64);

function conversation(): StoredEvent[] {
  seq = 0;
  return [
    ev({
      type: "task_created",
      v: 1,
      objective: "Tidy the notes",
      principal: "local",
      agent: "notes",
      model: "anthropic:claude-sonnet-4-5",
      actor: dana,
    }),
    ev({
      type: "human_input",
      v: 1,
      inputId: "i0",
      carrier: "objective",
      source: "user",
      delivery: "received",
      sessionSeq: 0,
      text: "Tidy the notes",
      actor: dana,
    }),
    ev({ type: "leg_started", v: 1, legId: "l1", trigger: "start" }),
    ev({ type: "user_message", v: 1, entryId: "e1", content: '[from "dana"]\nTidy the notes', inputIds: ["i0"] }),
    ev({
      type: "model_turn",
      v: 1,
      legId: "l1",
      sessionSeq: 1,
      text: "Looking",
      toolCalls: [{ callId: "c1", name: "lookup", input: { q: "style" } }],
      usage: { inputTokens: 10, outputTokens: 4 },
      finishReason: "tool-calls",
    }),
    ev({
      type: "human_input",
      v: 1,
      inputId: "i1",
      carrier: "steer",
      source: "user",
      delivery: "received",
      sessionSeq: 1,
      text: "Use tabs",
      actor: dana,
    }),
    ev({ type: "tool_call_started", v: 1, legId: "l1", callId: "c1", name: "lookup", attempt: 1 }),
    ev({
      type: "tool_result",
      v: 1,
      callId: "c1",
      name: "lookup",
      status: "ok",
      content: "<untrusted-9f>\nfound\n</untrusted-9f>",
    }),
    ev({
      type: "human_input",
      v: 1,
      inputId: "i1",
      carrier: "steer",
      source: "user",
      delivery: "applied",
      sessionSeq: 1,
      actor: dana,
    }),
    ev({ type: "user_message", v: 1, entryId: "e2", content: '[from "dana"]\nUse tabs', inputIds: ["i1"] }),
    ev({
      type: "model_turn",
      v: 1,
      legId: "l1",
      sessionSeq: 2,
      text: "",
      toolCalls: [{ callId: "c2", name: "write_note", input: { text: "tabs" } }],
      usage: { inputTokens: 20, outputTokens: 6, cachedInputTokens: 8 },
      finishReason: "tool-calls",
    }),
    ev({
      type: "approval_requested",
      v: 1,
      legId: "l1",
      callId: "c2",
      name: "write_note",
      inputJson: '{"text":"tabs"}',
      digest,
    }),
    ev({ type: "leg_ended", v: 1, legId: "l1", reason: "parked:approval" }),
  ];
}

function ending(): StoredEvent[] {
  return [
    ev({ type: "approval_decided", v: 1, callId: "c2", digest, decision: "approve", actor: dana }),
    ev({ type: "leg_started", v: 1, legId: "l2", trigger: "resume" }),
    ev({ type: "tool_call_started", v: 1, legId: "l2", callId: "c2", name: "write_note", attempt: 1 }),
    ev({ type: "tool_result", v: 1, callId: "c2", name: "write_note", status: "ok", content: "wrote tabs" }),
    ev({
      type: "model_turn",
      v: 1,
      legId: "l2",
      sessionSeq: 3,
      text: "Done",
      toolCalls: [],
      usage: { inputTokens: 30, outputTokens: 2 },
      finishReason: "stop",
    }),
    ev({ type: "task_completed", v: 1, result: '{"notes": 3, "style": "tabs"}' }),
    ev({ type: "leg_ended", v: 1, legId: "l2", reason: "completed" }),
  ];
}

describe("TaskFold", () => {
  it("holds each message once (the objective's input is the objective), with who said it, its lane and the exact framed bytes", () => {
    const fold = new TaskFold();
    fold.addAll(conversation());
    expect(fold.order).toEqual(["objective", "turn:5", "call:c1", "input:i1", "turn:11", "call:c2"]);
    expect(fold.items.get("objective")).toMatchObject({
      kind: "message",
      text: "Tidy the notes",
      actor: dana,
      framed: '[from "dana"]\nTidy the notes',
    });
    expect(fold.items.get("input:i1")).toMatchObject({
      kind: "message",
      lane: "user",
      carrier: "steer",
      delivery: "applied",
      text: "Use tabs",
      framed: '[from "dana"]\nUse tabs',
    });
    expect(fold.items.get("call:c1")).toMatchObject({ state: "ok", input: { q: "style" }, untrusted: true });
    expect(fold.items.get("call:c2")).toMatchObject({ state: "waiting", input: { text: "tabs" } });
    expect([...fold.approvals.keys()]).toEqual(["c2"]);
    expect(fold.usage).toEqual({ inputTokens: 30, outputTokens: 10, cachedInputTokens: 8 });
    expect(fold.result).toBeUndefined();
  });

  it("takes the rest of the log where it left off: the decision, the result as a value, the legs", () => {
    const fold = new TaskFold();
    fold.addAll(conversation());
    const change = fold.addAll(ending());
    expect(change.items).toEqual(["call:c2", "turn:18"]);
    expect(change.approvals).toBe(true);
    expect(fold.approvals.size).toBe(0);
    expect(fold.items.get("call:c2")).toMatchObject({ state: "ok", output: "wrote tabs", untrusted: false });
    expect(fold.result).toEqual({
      status: "completed",
      text: '{"notes": 3, "style": "tabs"}',
      value: { notes: 3, style: "tabs" },
    });
    expect(fold.legs.map((leg) => [leg.legId, leg.reason, leg.items.map((item) => [item.kind, item.status])])).toEqual([
      [
        "l1",
        "parked:approval",
        [
          ["turn", "ok"],
          ["tool", "ok"],
          ["turn", "ok"],
          ["wait", "approve"],
        ],
      ],
      [
        "l2",
        "completed",
        [
          ["tool", "ok"],
          ["turn", "ok"],
        ],
      ],
    ]);
    // A turn is timed from the event before it: the first from the framed objective.
    expect(fold.legs[0]?.items[0]).toMatchObject({ start: at(4), end: at(5) });
  });

  it("ignores an event it has already folded", () => {
    const fold = new TaskFold();
    const log = conversation();
    fold.addAll(log);
    const again = fold.add(log[4] as StoredEvent);
    expect(again).toEqual({ items: [], legs: [], result: false, usage: false, approvals: false });
  });

  it("ends a leg a fork's copy left open at its task_forked", () => {
    seq = 0;
    const fold = new TaskFold();
    fold.addAll([
      ev({ type: "task_created", v: 1, objective: "x", principal: "p" }),
      ev({ type: "leg_started", v: 1, legId: "l1", trigger: "start" }),
      ev({ type: "task_forked", v: 1, origin: "fork", source: { taskId: "t0", seq: 2 } }),
    ]);
    expect(fold.legs[0]).toMatchObject({ reason: "forked", end: at(3) });
    expect(fold.items.get("note:3")).toMatchObject({ text: "Forked from task t0 at event 2" });
  });

  it("reports exactly what each event touched: everything else is as it was", () => {
    fc.assert(
      fc.property(taskLog, (log) => {
        const fold = new TaskFold();
        for (const event of log) {
          const items = structuredClone(new Map(fold.items));
          const legs = structuredClone(fold.legs);
          const usage = { ...fold.usage };
          const approvals = [...fold.approvals.keys()];
          const result = structuredClone(fold.result);
          const change = fold.add(event);
          for (const [key, item] of fold.items)
            if (!change.items.includes(key)) expect(item, `${event.type} changed ${key}`).toEqual(items.get(key));
          for (const leg of fold.legs)
            if (!change.legs.includes(leg.key))
              expect(leg, `${event.type} changed ${leg.key}`).toEqual(legs.find((l) => l.key === leg.key));
          if (!change.usage) expect(fold.usage).toEqual(usage);
          if (!change.approvals) expect([...fold.approvals.keys()]).toEqual(approvals);
          if (!change.result) expect(fold.result).toEqual(result);
          for (const key of change.items) expect(fold.items.has(key)).toBe(true);
        }
      }),
    );
  });

  it("holds one message per input, and usage is the sum of the turns'", () => {
    fc.assert(
      fc.property(taskLog, (log) => {
        const fold = new TaskFold();
        fold.addAll(log);
        const inputs = new Set(
          log.flatMap((event) =>
            event.type === "human_input" && event.carrier !== "objective" ? [event.inputId] : [],
          ),
        );
        const messages = [...fold.items.values()].filter((item) => item.kind === "message" && item.key !== "objective");
        expect(messages.map((item) => item.key).sort()).toEqual([...inputs].map((id) => `input:${id}`).sort());
        expect(new Set(fold.order).size).toBe(fold.order.length);
        expect(fold.order.length).toBe(fold.items.size);
        const turns = log.flatMap((event) => (event.type === "model_turn" ? [event.usage] : []));
        expect(fold.usage.inputTokens).toBe(turns.reduce((sum, u) => sum + u.inputTokens, 0));
        expect(fold.usage.outputTokens).toBe(turns.reduce((sum, u) => sum + u.outputTokens, 0));
      }),
    );
  });

  it("folds the same log the same whether one event at a time or split anywhere", () => {
    fc.assert(
      fc.property(taskLog, fc.nat(), (log, cut) => {
        const whole = new TaskFold();
        for (const event of log) whole.add(event);
        const split = new TaskFold();
        const at = log.length === 0 ? 0 : cut % log.length;
        split.addAll(log.slice(0, at));
        split.addAll(log.slice(at));
        expect(split.items).toEqual(whole.items);
        expect(split.legs).toEqual(whole.legs);
        expect(split.order).toEqual(whole.order);
      }),
    );
  });

  it("counts each turn and the whole task at the task's price, whenever the prices arrive", () => {
    const price = { input: 3, output: 15, cachedInput: 0.3 };
    // The server's table: the task's model is priced by its longest matching prefix.
    const prices = { claude: { input: 99, output: 99 }, "claude-sonnet": price, "gpt-5": { input: 1, output: 2 } };
    // The price after the log (the detail answered late): every turn is drawn again with its cost.
    const late = new TaskFold();
    late.addAll([...conversation(), ...ending()]);
    expect(late.costUsd).toBeUndefined();
    const change = late.setPrices(prices);
    expect(change.items).toEqual(["turn:5", "turn:11", "turn:18"]);
    expect(change.usage).toBe(true);
    const cost = (key: string) => (late.items.get(key) as { costUsd?: number }).costUsd;
    // 10 in, 4 out; 20 in of which 8 cached, 6 out; 30 in, 2 out.
    expect(cost("turn:5")).toBeCloseTo((10 * 3 + 4 * 15) / 1e6, 15);
    expect(cost("turn:11")).toBeCloseTo((12 * 3 + 8 * 0.3 + 6 * 15) / 1e6, 15);
    expect(cost("turn:18")).toBeCloseTo((30 * 3 + 2 * 15) / 1e6, 15);
    expect(late.costUsd).toBeCloseTo((cost("turn:5") ?? 0) + (cost("turn:11") ?? 0) + (cost("turn:18") ?? 0), 15);
    // The same price again changes nothing; none takes the costs away.
    expect(late.setPrices(structuredClone(prices))).toMatchObject({ items: [], usage: false });
    late.setPrices(undefined);
    expect(cost("turn:5")).toBeUndefined();
    expect(late.costUsd).toBeUndefined();
    // The price first: each turn is counted as it is folded, and the totals agree.
    const early = new TaskFold();
    early.setPrices(prices);
    early.addAll(conversation());
    const more = early.addAll(ending());
    expect(more.usage).toBe(true);
    late.setPrices(prices);
    expect(early.items).toEqual(late.items);
    expect(early.costUsd).toBeCloseTo(late.costUsd ?? Number.NaN, 15);
  });

  it("prices usage exactly as the server does (core's costUsd)", () => {
    const count = fc.nat({ max: 5_000_000 });
    const rate = fc.double({ min: 0, max: 100, noNaN: true });
    fc.assert(
      fc.property(
        count,
        count,
        fc.option(count, { nil: undefined }),
        rate,
        rate,
        fc.option(rate, { nil: undefined }),
        (inputTokens, outputTokens, cached, input, output, cachedInput) => {
          const usage = {
            inputTokens,
            outputTokens,
            ...(cached === undefined ? {} : { cachedInputTokens: Math.min(cached, inputTokens) }),
          };
          const price = { input, output, ...(cachedInput === undefined ? {} : { cachedInput }) };
          expect(costOf(usage, price)).toBe(costUsd(usage, price));
        },
      ),
    );
  });

  it("prices each turn at the model that ran it: the task's, a turn's own, a fork's", () => {
    seq = 0;
    const use = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });
    const turn = (sessionSeq: number, usage: Usage, model?: string) =>
      ev({
        type: "model_turn",
        v: 1,
        legId: "l1",
        sessionSeq,
        text: "ok",
        toolCalls: [],
        usage,
        finishReason: "stop",
        ...(model === undefined ? {} : { model }),
      });
    const log = [
      ev({ type: "task_created", v: 1, objective: "Mixed", principal: "local", model: "openai:gpt-5" }),
      ev({ type: "leg_started", v: 1, legId: "l1", trigger: "start" }),
      turn(1, use(100, 10)),
      // A resume on another model: the turn names it.
      turn(2, use(200, 20), "openai:gpt-5-mini"),
      // A fork with another model: the turns after it ran on that one, naming none.
      ev({ type: "task_forked", v: 1, origin: "fork", source: { taskId: "t0", seq: 4 }, model: "anthropic:claude-x" }),
      turn(3, use(300, 30)),
      ev({ type: "child_task", v: 1, phase: "result", childTaskId: "c", status: "completed", usage: use(5, 5) }),
    ];
    const prices = {
      "gpt-5": { input: 1, output: 10 },
      "gpt-5-mini": { input: 0.25, output: 2 },
      claude: { input: 3, output: 15 },
    };
    const fold = new TaskFold();
    fold.setPrices(prices);
    fold.addAll(log);
    const cost = (key: string) => fold.items.get(key) as { costUsd?: number; pricedModel?: string } | undefined;
    expect(cost("turn:3")).toMatchObject({
      pricedModel: "openai:gpt-5",
      costUsd: costUsd(use(100, 10), prices["gpt-5"]),
    });
    expect(cost("turn:4")).toMatchObject({
      pricedModel: "openai:gpt-5-mini",
      costUsd: costUsd(use(200, 20), prices["gpt-5-mini"]),
    });
    expect(cost("turn:6")).toMatchObject({
      pricedModel: "anthropic:claude-x",
      costUsd: costUsd(use(300, 30), prices.claude),
    });
    // The total, model by model; a child's tokens at the model the parent ran then.
    expect(fold.costUsd).toBe(
      costUsd(use(100, 10), prices["gpt-5"]) +
        costUsd(use(200, 20), prices["gpt-5-mini"]) +
        costUsd(use(305, 35), prices.claude),
    );
    // A model without a price: that turn has no cost, and the task no total.
    const partial = new TaskFold();
    partial.setPrices({ "gpt-5": prices["gpt-5"] });
    partial.addAll(log);
    expect((partial.items.get("turn:3") as { costUsd?: number }).costUsd).toBe(costUsd(use(100, 10), prices["gpt-5"]));
    expect((partial.items.get("turn:6") as { costUsd?: number }).costUsd).toBeUndefined();
    expect(partial.costUsd).toBeUndefined();
  });

  it("prices a mixed-model task exactly as core's priceOf and costUsd, turn by turn and in all", () => {
    const models = ["openai:gpt-5", "openai:gpt-5-mini", "anthropic:claude-x", "gpt-4o", "other:unpriced"];
    const model = fc.constantFrom(...models);
    const rate = fc.double({ min: 0, max: 100, noNaN: true });
    const price = fc.record({ input: rate, output: rate, cachedInput: fc.option(rate, { nil: undefined }) });
    const table = fc.dictionary(fc.constantFrom("gpt-5", "gpt-5-mini", "gpt", "claude", "gpt-4o"), price);
    const count = fc.nat({ max: 100_000 });
    const step = fc.oneof(
      fc.record({
        kind: fc.constant("turn" as const),
        model: fc.option(model, { nil: undefined }),
        i: count,
        o: count,
      }),
      fc.record({ kind: fc.constant("fork" as const), model: fc.option(model, { nil: undefined }) }),
    );
    fc.assert(
      fc.property(model, fc.array(step, { maxLength: 12 }), table, (first, steps, rawPrices) => {
        const prices: Record<string, ModelPrice> = {};
        for (const [key, p] of Object.entries(rawPrices))
          prices[key] =
            p.cachedInput === undefined
              ? { input: p.input, output: p.output }
              : { input: p.input, output: p.output, cachedInput: p.cachedInput };
        seq = 0;
        const log = [ev({ type: "task_created", v: 1, objective: "x", principal: "local", model: first })];
        // What each turn ran on, worked out here apart from the fold.
        let current = first;
        const expected: Array<{ key: string; model: string; usage: Usage }> = [];
        for (const s of steps) {
          if (s.kind === "fork") {
            log.push(
              ev({
                type: "task_forked",
                v: 1,
                origin: "fork",
                source: { taskId: "t0", seq: 1 },
                ...(s.model === undefined ? {} : { model: s.model }),
              }),
            );
            if (s.model !== undefined) current = s.model;
            continue;
          }
          const usage = { inputTokens: s.i, outputTokens: s.o };
          const event = ev({
            type: "model_turn",
            v: 1,
            legId: "l1",
            sessionSeq: expected.length + 1,
            text: "",
            toolCalls: [],
            usage,
            finishReason: "stop",
            ...(s.model === undefined ? {} : { model: s.model }),
          });
          log.push(event);
          expected.push({ key: `turn:${event.seq}`, model: s.model ?? current, usage });
        }
        for (const id of models) expect(priceOf(id, prices)).toEqual(corePriceOf(id, prices));
        const fold = new TaskFold();
        fold.addAll(log);
        fold.setPrices(prices);
        const byModel = new Map<string, Usage>();
        for (const turn of expected) {
          const p = corePriceOf(turn.model, prices);
          const item = fold.items.get(turn.key) as { costUsd?: number };
          expect(item.costUsd).toBe(p === undefined ? undefined : costUsd(turn.usage, p));
          const sum = byModel.get(turn.model) ?? { inputTokens: 0, outputTokens: 0 };
          byModel.set(turn.model, {
            inputTokens: sum.inputTokens + turn.usage.inputTokens,
            outputTokens: sum.outputTokens + turn.usage.outputTokens,
          });
        }
        let total: number | undefined = 0;
        for (const [id, usage] of byModel) {
          const p = corePriceOf(id, prices);
          total = p === undefined || total === undefined ? undefined : total + costUsd(usage, p);
        }
        expect(fold.costUsd).toBe(total);
      }),
    );
  });
});
