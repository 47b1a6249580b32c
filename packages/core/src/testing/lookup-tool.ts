/**
 * An instant, read-only, idempotent tool and the script that calls it once a turn: the workload
 * of the harness benchmark and of tests about long tasks. `lookup({ key })` → `value of <key>`.
 */
import { z } from "zod";
import { defineTool } from "../harness/tools/define-tool.ts";
import type { ScriptedTurn } from "./scripted-model.ts";

/** `lookup({ key })` answers `value of <key>` at once: read-only and idempotent (pair with `lookupTurns`). */
export const lookupTool = defineTool({
  name: "lookup",
  description: "Look a key up",
  inputSchema: z.object({ key: z.string() }),
  readOnly: true,
  idempotent: true,
  execute: ({ key }) => `value of ${key}`,
});

/** `turns` model turns: every one but the last looks a key up (`k0`, `k1` …), the last answers `final`. */
export function lookupTurns(turns: number, final = "Done."): ScriptedTurn[] {
  return Array.from({ length: turns }, (_, i) =>
    i === turns - 1 ? { text: final } : { text: "Checking.", toolCalls: [{ name: "lookup", input: { key: `k${i}` } }] },
  );
}
