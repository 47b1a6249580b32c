/**
 * `@sema-agent/core/node`: what needs Node — the process's lease identity (host, pid, process
 * table) and telling a dead holder on this machine. The root entry imports no `node:*` module;
 * Node hosts (the CLI, the server's workers) pass `nodeHost()` to `runLeg`.
 *
 * @module @sema-agent/core/node
 */

export { type NodeHost, nodeHolder, nodeHost, tasksOfDeadHoldersHere } from "./node-host.ts";
export { holderDiedHere, processAlive, processSpace } from "./process-space.ts";
