/**
 * Workspaces for hosts that serve many principals (`sema serve`, `sema worker`): each principal —
 * or each task — gets its own directory under one base, so one tenant's tools never see another's
 * files, nor the host's. Principals and task ids are arbitrary strings, so a directory name is a
 * readable slug plus a digest of the exact string: no `/`, no `.` or `..`, and two distinct strings
 * never share a name (the slug alone could: `a/b` and `a_b`).
 */
import { createHash } from "node:crypto";
import path from "node:path";
import type { ToolContext } from "@sema-agent/core";

/** What gets a workspace of its own: each principal (its tasks share it), or each task. */
export type WorkspacePer = "principal" | "task";

/** The longest readable part of a name; the digest makes it unique, the slug only helps a person. */
const SLUG_CHARS = 40;

/** Hex characters of SHA-256 kept: 64 bits, far past any chance collision between tenants. */
const DIGEST_CHARS = 16;

/**
 * The directory name for `id`: `[A-Za-z0-9_-]` only, at most 57 characters, and injective in
 * practice (a 64-bit digest of the exact string, case included).
 */
export function workspaceName(id: string): string {
  const slug = id.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, SLUG_CHARS) || "_";
  const digest = createHash("sha256").update(id, "utf8").digest("hex").slice(0, DIGEST_CHARS);
  return `${slug}-${digest}`;
}

/**
 * A root resolver for `createFileTools`: `<base>/<principal>` or `<base>/<principal>/<task>`, each
 * part named by {@link workspaceName}. A task's workspace sits inside its principal's, so task ids
 * of different principals can never meet.
 */
export function workspaceResolver(base: string, per: WorkspacePer): (context: ToolContext) => string {
  const absolute = path.resolve(base);
  return (context) => {
    const principal = path.join(absolute, workspaceName(context.principal));
    return per === "task" ? path.join(principal, workspaceName(context.taskId)) : principal;
  };
}
