import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../adapters/memory-store.ts";
import { runLeg } from "../harness/leg/run-leg.ts";
import { acquireLeg } from "../harness/leg/take-lease.ts";
import { startTask } from "../harness/tasks/start-task.ts";
import { ScriptedModel } from "../testing/scripted-model.ts";
import { nodeHolder, nodeHost, tasksOfDeadHoldersHere } from "./node-host.ts";
import { holderDiedHere, processAlive, processSpace } from "./process-space.ts";

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  if (child.pid === undefined) throw new Error("could not spawn");
  return child.pid;
}

describe("the node host: leases of dead holders on this machine", () => {
  it("tells live processes from dead ones", () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(deadPid())).toBe(false);
  });

  it("takes over at once a lease whose holder was a process on this machine that no longer exists", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    await store.acquireLease(taskId, {
      holder: { id: "crashed-cli", host: hostname(), pid: deadPid(), space: processSpace() },
      ttlMs: 600_000,
    });
    expect((await tasksOfDeadHoldersHere(store)).map((task) => task.taskId)).toEqual([taskId]);
    const model = new ScriptedModel([{ text: "recovered" }]);
    const outcome = await runLeg({ store, agent: { model }, ...nodeHost() }, taskId);
    expect(outcome).toMatchObject({ status: "completed", result: "recovered" });
  });

  it("without a node host, waits out even a dead holder here: the runtime-neutral default knows no pid", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    await store.acquireLease(taskId, {
      holder: { id: "crashed-cli", host: hostname(), pid: deadPid(), space: processSpace() },
      ttlMs: 600_000,
    });
    const model = new ScriptedModel([{ text: "never" }]);
    await expect(runLeg({ store, agent: { model } }, taskId)).rejects.toMatchObject({ code: "LeaseHeld" });
    await expect(acquireLeg(store, taskId, { id: "me" }, 1000)).rejects.toMatchObject({ code: "LeaseHeld" });
  });

  it("names this process on its leases by host, pid and process table, the same for its whole life", () => {
    expect(nodeHolder()).toMatchObject({ host: hostname(), pid: process.pid, space: processSpace() });
    expect(nodeHolder()).toBe(nodeHolder());
  });

  it("waits out a dead pid from another process table: another container, another boot, or unknown", async () => {
    const store = new MemoryStore();
    for (const space of ["other-boot/pid:[4026531836]", undefined]) {
      const taskId = await startTask(store, { objective: "x" });
      const holder = { id: `in-${space}`, host: hostname(), pid: deadPid(), ...(space === undefined ? {} : { space }) };
      await store.acquireLease(taskId, { holder, ttlMs: 600_000 });
      await expect(acquireLeg(store, taskId, { id: "me" }, 1000, holderDiedHere)).rejects.toMatchObject({
        code: "LeaseHeld",
      });
    }
  });

  it("names this process table by boot and PID namespace, the same for the whole process", () => {
    expect(processSpace()).toBe(processSpace());
    if (process.platform === "linux") expect(processSpace()).toMatch(/^[0-9a-f-]{36}\/pid:\[\d+\]$/);
  });

  it("waits for a live holder, or one on another machine, to expire: LeaseHeld says until when", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "x" });
    await store.acquireLease(taskId, { holder: { id: "live", host: hostname(), pid: process.pid }, ttlMs: 600_000 });
    await expect(acquireLeg(store, taskId, { id: "me" }, 1000, holderDiedHere)).rejects.toMatchObject({
      code: "LeaseHeld",
      holder: { id: "live" },
    });
    const other = await startTask(store, { objective: "y" });
    const remote = await store.acquireLease(other, {
      holder: { id: "remote", host: "some-other-machine", pid: deadPid() },
      ttlMs: 600_000,
    });
    const error = await acquireLeg(store, other, { id: "me" }, 1000, holderDiedHere).catch((e: unknown) => e);
    // Refused with the remote holder's own lease: not taken over, not ended.
    expect(error).toMatchObject({ code: "LeaseHeld", holder: { id: "remote" }, expiresAt: remote.expiresAt });
  });
});
