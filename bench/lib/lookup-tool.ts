/** The instant read-only tool every Sema benchmark calls: `lookup({ key })` → `value of <key>`. */
import { defineTool } from "@sema-agent/core";
import { z } from "zod";

export const lookupTool = defineTool({
  name: "lookup",
  description: "Look a key up",
  inputSchema: z.object({ key: z.string() }),
  readOnly: true,
  idempotent: true,
  execute: ({ key }) => `value of ${key}`,
});
