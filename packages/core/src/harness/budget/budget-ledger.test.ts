// The budget ledger over random task trees (issue 22): random depth, fan-out, children waited for
// or not, random spends, the host killed at a random append and the tree resumed on a fresh store
// handle by workers that run every runnable task at once. Whatever happens, the family's recorded
// spend stays within the root's maxTokens plus the documented bound (one input-estimate error per
// task, here at most EXTRA tokens a call), every share is released once, by the child's one
// result, and a child is created with exactly the share its parent's log recorded.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold, outstandingReservations } from "../../core/fold.ts";
import { isTerminal } from "../../core/task-summary.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { Store } from "../../ports/store.ts";
import { isSemaError } from "../../protocol/errors.ts";
import type { BudgetReservation, StoredEvent } from "../../protocol/task-event.ts";
import { dyingStore, SimulatedDeath } from "../../testing/dying-store.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { jumpingClock } from "../test-support/jumping-clock.ts";
import { budgetFromMetadata } from "./budget.ts";
import { siblingShare } from "./budget-ledger.ts";

/** One turn of a task's plan: children to delegate to (waited for or not), or none; tokens it writes. */
interface PlanTurn {
  delegate: Array<{ child: Plan; wait: boolean }>;
  out: number;
  /** Input tokens the provider counts beyond the harness's estimate (its error). */
  extra: number;
}
interface Plan {
  turns: PlanTurn[];
}

const EXTRA = 20;
const LEASE_TTL_MS = 100;

function planArb(depth: number): fc.Arbitrary<Plan> {
  const child: fc.Arbitrary<PlanTurn["delegate"]> =
    depth <= 0
      ? fc.constant([])
      : fc.array(fc.record({ child: planArb(depth - 1), wait: fc.boolean() }), { maxLength: 3 });
  const turn: fc.Arbitrary<PlanTurn> = fc.record({
    delegate: child,
    out: fc.integer({ min: 0, max: 400 }),
    extra: fc.integer({ min: 0, max: EXTRA }),
  });
  return fc.record({ turns: fc.array(turn, { minLength: 1, maxLength: 3 }) });
}

/** Every plan by the objective its task is given, so the model is stateless across crashes. */
function index(plan: Plan, id: string, into: Map<string, Plan>): Map<string, Plan> {
  into.set(id, plan);
  plan.turns.forEach((turn, t) => {
    turn.delegate.forEach(({ child }, c) => {
      index(child, `${id}.${t}${c}`, into);
    });
  });
  return into;
}

/** The provider's input count: what the user entries hold at four characters a token (never above the estimate), plus the turn's error. */
function counted(request: ModelRequest, extra: number): number {
  let chars = 0;
  for (const entry of request.transcript) if (entry.role === "user") chars += entry.content.length;
  return Math.ceil(chars / 4) + extra;
}

function treeModel(plans: Map<string, Plan>, withError: boolean): ScriptedModel {
  const step = (request: ModelRequest): ScriptedTurn => {
    const first = request.transcript[0];
    const id = first?.role === "user" ? first.content : "";
    const plan = plans.get(id);
    const n = request.transcript.filter((e) => e.role === "assistant").length;
    const turn = plan?.turns[n];
    const usage = (out: number, extra: number) => ({
      inputTokens: counted(request, withError ? extra : 0),
      outputTokens: Math.min(out, request.maxOutputTokens ?? out),
    });
    if (plan === undefined || turn === undefined) return { text: `${id} done`, usage: usage(5, 0) };
    const last = n === plan.turns.length - 1;
    if (turn.delegate.length > 0) {
      return {
        toolCalls: turn.delegate.map(({ wait }, c) => ({
          name: "delegate",
          input: { objective: `${id}.${n}${c}`, wait },
          callId: `d${n}${c}`,
        })),
        usage: usage(turn.out, turn.extra),
      };
    }
    if (last) return { text: `${id} done`, usage: usage(turn.out, turn.extra) };
    return { toolCalls: [{ name: "missing", input: {} }], usage: usage(turn.out, turn.extra) };
  };
  return new ScriptedModel(
    Array.from({ length: 2000 }, () => step),
    { recordRequests: false },
  );
}

async function familyOf(store: Store, taskId: string): Promise<Map<string, StoredEvent[]>> {
  const out = new Map<string, StoredEvent[]>();
  const visit = async (id: string) => {
    const events = await store.read(id);
    out.set(id, events);
    for (const e of events)
      if (e.type === "child_task" && e.phase === "spawned" && !out.has(e.childTaskId)) {
        const exists = await store.getTask(e.childTaskId).then(
          () => true,
          () => false,
        );
        if (exists) await visit(e.childTaskId);
      }
  };
  await visit(taskId);
  return out;
}

const tolerated = (error: unknown) =>
  error instanceof SimulatedDeath || isSemaError(error, "LeaseLost") || isSemaError(error, "LeaseHeld");

/** The limit a run holds the tree to: tokens, or dollars at one price for every task. */
type Kind = "tokens" | "cost";
const PRICE = { input: 1000, output: 2000 }; // $ per million: a tenth and a fifth of a cent a token
const dollars = (tokens: number) => tokens / 1000;
const costOf = (usage: { inputTokens: number; outputTokens: number }) =>
  (usage.inputTokens * PRICE.input + usage.outputTokens * PRICE.output) / 1_000_000;

async function runTree(
  kind: Kind,
  limit: number,
  plan: Plan,
  dieAfter: number,
  when: "before" | "after",
  withError: boolean,
) {
  // Time moves only when the test jumps it: the store's leases and the harness's readings agree,
  // and nothing depends on how fast this machine runs the tree.
  const clock = jumpingClock({ withWallClock: false });
  const store = new MemoryStore({ now: clock.now });
  const rootId = await startTask(store, { objective: "root" });
  const plans = index(plan, "root", new Map());
  const agent: Agent = {
    standingInstructions: false,
    model: treeModel(plans, withError),
    delegation: { maxDepth: 4, maxChildren: 20 },
    budget: kind === "tokens" ? { maxTokens: limit } : { maxCostUsd: dollars(limit), prices: { inline: PRICE } },
  };
  const options = { agent, leaseTtlMs: LEASE_TTL_MS, clock: clock.now };
  const doomed = dyingStore(store, { appendsBeforeDeath: dieAfter, when });
  // The first leg's appends, counted: an undisturbed run tells how many a death can be drawn over.
  let firstLegAppends = 0;
  const counted: Store = {
    ...doomed,
    append: (taskId, events, appendOptions) => {
      firstLegAppends++;
      return doomed.append(taskId, events, appendOptions);
    },
  };
  try {
    await runLeg({ ...options, store: counted, holder: { id: "doomed" } }, rootId);
  } catch (error) {
    if (!tolerated(error)) throw error;
  }
  clock.jump(LEASE_TTL_MS + 1);
  let before = -1;
  for (let round = 0; round < 40; round++) {
    const family = await familyOf(store, rootId);
    // Done when nothing is runnable, or when a round only started legs that parked at once: a
    // parent parked for a child with an input it cannot take yet stays runnable (see the report).
    const progress = [...family.values()].flat().filter((e) => e.type !== "leg_started" && e.type !== "leg_ended");
    if (progress.length === before) break;
    before = progress.length;
    const runnable = (await store.listRunnable()).filter((r) => family.has(r.taskId));
    if (runnable.length === 0) break;
    // Every runnable task of the tree at once: a parent goes on while the children it did not wait for run.
    await Promise.all(
      runnable.map((r) =>
        runLeg({ ...options, store, holder: { id: `worker-${round}-${r.taskId}` } }, r.taskId).catch(
          (error: unknown) => {
            if (!tolerated(error)) throw error;
          },
        ),
      ),
    );
    clock.jump(LEASE_TTL_MS + 1);
  }
  return { store, rootId, died: doomed.dead, firstLegAppends };
}

/**
 * The ledger's promises, read from the logs: the family's recorded spend is within the limit plus
 * one estimate error per task; each child's result is recorded once, and only once it ended; what
 * a task holds is its running children's shares and what ended ones still held; and each child
 * was created with exactly the share its parent's log recorded (even by a leg resumed later).
 */
async function checkLedger(kind: Kind, store: Store, rootId: string, limit: number, withError: boolean) {
  const family = await familyOf(store, rootId);
  let spend = 0;
  for (const events of family.values())
    for (const e of events)
      if (e.type === "model_turn")
        spend += kind === "tokens" ? e.usage.inputTokens + e.usage.outputTokens : costOf(e.usage);
  // One estimate error per task at most: each task's overshooting call is its last.
  const error = withError ? family.size * EXTRA : 0;
  if (kind === "tokens") expect(spend).toBeLessThanOrEqual(limit + error);
  else expect(spend).toBeLessThanOrEqual(dollars(limit) + costOf({ inputTokens: error, outputTokens: 0 }) + 1e-9);
  const amount = (share: BudgetReservation | undefined) => (kind === "tokens" ? share?.tokens : share?.costUsd) ?? 0;
  for (const [id, events] of family) {
    const state = fold(events);
    let held = 0;
    for (const child of state.children) {
      const results = events.filter(
        (e) => e.type === "child_task" && e.phase === "result" && e.childTaskId === child.childTaskId,
      );
      const record = await store.getTask(child.childTaskId).catch(() => undefined);
      const ended = record !== undefined && isTerminal(record.summary.status);
      // Released exactly once: by the child's one result, which an ended child has made. (A
      // child woken after its report, by a child of its own, may be parked again now.)
      expect(results.length, `${id} → ${child.childTaskId}`).toBeLessThanOrEqual(1);
      if (ended) expect(results.length, `${id} → ${child.childTaskId}`).toBe(1);
      expect(child.status === "running", `${child.childTaskId}`).toBe(results.length === 0);
      expect(child.reserved, `${child.childTaskId} spawned without a share`).toBeDefined();
      // A child that ended keeps holding what its own running children held then.
      held += amount(child.status === "running" ? child.reserved : child.held);
      // Created (maybe by a resumed leg) with exactly the share the parent's log holds.
      const created = family.get(child.childTaskId);
      if (created === undefined) continue;
      const carved = budgetFromMetadata(fold(created).metadata);
      expect(kind === "tokens" ? carved?.maxTokens : carved?.maxCostUsd).toBe(amount(child.reserved));
    }
    const outstanding = outstandingReservations(state);
    expect(kind === "tokens" ? outstanding.tokens : outstanding.costUsd).toBeCloseTo(held, 9);
  }
}

describe("the budget ledger over random trees", () => {
  it("family spend ≤ limit + bound; each share released once; a child gets the share its parent recorded", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("tokens" as const, "cost" as const),
        fc.integer({ min: 50, max: 3000 }),
        planArb(2),
        // Where the host dies, as a fraction of the appends the first leg makes undisturbed: every
        // run dies mid-tree, whatever the seed (a death drawn past a run's last append is none).
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom("before" as const, "after" as const),
        fc.boolean(),
        async (kind, limit, plan, permille, when, withError) => {
          const whole = await runTree(kind, limit, plan, Number.POSITIVE_INFINITY, when, withError);
          expect(whole.died).toBe(false);
          await checkLedger(kind, whole.store, whole.rootId, limit, withError);
          const dieAfter = Math.floor((permille * whole.firstLegAppends) / 1000);
          const { store, rootId, died } = await runTree(kind, limit, plan, dieAfter, when, withError);
          expect(died, `a death at append ${dieAfter} of ${whole.firstLegAppends}`).toBe(true);
          await checkLedger(kind, store, rootId, limit, withError);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it("a fixed tree killed at every append, before and after it commits, keeps the same promises", async () => {
    const leaf: Plan = { turns: [{ delegate: [], out: 120, extra: 0 }] };
    const middle: Plan = {
      turns: [
        { delegate: [{ child: leaf, wait: false }], out: 40, extra: 0 },
        { delegate: [], out: 60, extra: 0 },
      ],
    };
    const plan: Plan = {
      turns: [
        {
          delegate: [
            { child: middle, wait: true },
            { child: leaf, wait: false },
          ],
          out: 30,
          extra: 0,
        },
        { delegate: [{ child: leaf, wait: true }], out: 200, extra: 0 },
        { delegate: [], out: 300, extra: 0 },
      ],
    };
    let deaths = 0;
    // Every append for tokens; every third for dollars (the random runs above cover both).
    for (const kind of ["tokens", "cost"] as const)
      for (let n = 0; n < 42; n += kind === "tokens" ? 1 : 3)
        for (const when of ["before", "after"] as const) {
          const { store, rootId, died } = await runTree(kind, 900, plan, n, when, false);
          if (died) deaths++;
          await checkLedger(kind, store, rootId, 900, false);
        }
    expect(deaths).toBeGreaterThan(30);
  }, 120_000);

  it("siblings' shares never hold more than there is", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -100, max: 100_000 }),
        fc.double({ min: -1, max: 100, noNaN: true }),
        fc.integer({ min: 1, max: 12 }),
        fc.boolean(),
        (tokens, costUsd, count, keeps) => {
          const share = siblingShare({ tokens, costUsd }, count, keeps);
          const n = count + (keeps ? 1 : 0);
          expect((share?.tokens ?? 0) * n).toBeLessThanOrEqual(Math.max(0, tokens));
          expect((share?.costUsd ?? 0) * n).toBeLessThanOrEqual(Math.max(0, costUsd) + 1e-9);
          expect(share?.tokens).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});
