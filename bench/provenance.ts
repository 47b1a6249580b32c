/**
 * The provenance classification's cost per tool call (docs/guide/security.md "Taint"): a context
 * holding 1, 10 or 100 KB of untrusted text (a fenced tool result of prose with URLs, addresses and
 * numbers) after a trusted objective, and a call of two arguments (an address and a 300-character
 * body). Measured: indexing the context (once per leg, then per new entry), classifying the call
 * on the leg's warm index (what each call of a turn pays), the whole classification from scratch
 * (what a call recovered after a crash pays), and the egress check of a URL argument.
 *
 *   npm run bench:provenance                 # 7 rounds
 *   npm run bench:provenance -- --save       # and write bench/results/provenance/<date>-<commit>.json
 */
import { parseArgs } from "node:util";
import type { JsonValue } from "@sema-agent/core";
import type { TranscriptEntry } from "@sema-agent/core/protocol";
import { classifyToolCall, delimitUntrusted, disallowedDestinations, ProvenanceIndex } from "@sema-agent/core/trust";
import { describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "7" }, save: { type: "boolean", default: false } },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
const machine = describeMachine();

const SIZES_KB = [1, 10, 100];

/** `kb` KB of page text: sentences with a URL, an address, a path and numbers, all different. */
function untrustedText(kb: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < kb * 1024; i++) {
    const line = `Item ${i}: the vendor at https://vendor-${i}.example/p/${i * 7} (contact sales${i}@vendor.example, file docs/v${i}/spec.md) quotes ${1000 + i * 13} dollars for ${i % 50} seats.`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

function context(kb: number): { transcript: TranscriptEntry[]; transcriptSeqs: number[] } {
  const content = delimitUntrusted(untrustedText(kb), { kind: "tool_output", from: "fetch_page" });
  return {
    transcript: [
      {
        role: "user",
        entryId: "objective",
        content: "Compare the vendors' prices and e-mail bob@corp.example a summary.",
      },
      {
        role: "assistant",
        text: "",
        toolCalls: [{ callId: "c1", name: "fetch_page", input: { url: "https://vendors.example/" } }],
      },
      { role: "tool", callId: "c1", name: "fetch_page", status: "ok", content },
    ],
    transcriptSeqs: [3, 5, 7],
  };
}

const CALL: JsonValue = {
  to: "bob@corp.example",
  body: "Here is the summary you asked for: prices vary by seat count and by vendor, most quotes land between one and two thousand dollars, and the cheapest offers come with fewer seats. I recommend we ask two of them for a demo next week before we decide anything.".padEnd(
    300,
    ".",
  ),
};
const URL_CALL: JsonValue = { url: "https://vendor-3.example/p/21?ref=summary" };

/** Mean microseconds per run of `work`, over enough runs to take about 50 ms. */
function microsPer(work: () => unknown): number {
  let runs = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < runs; i++) work();
    const ms = performance.now() - start;
    if (ms >= 50) return (ms * 1000) / runs;
    runs *= ms < 5 ? 10 : 2;
  }
}

const rows: ResultRow[] = [];
for (const kb of SIZES_KB) {
  const ctx = context(kb);
  const index = new ProvenanceIndex().sync(ctx);
  if (index.classify(CALL).classification !== "exposed") throw new Error("the benign call should be exposed");
  const build: number[] = [];
  const warm: number[] = [];
  const scratch: number[] = [];
  const egress: number[] = [];
  for (let round = 0; round < rounds; round++) {
    build.push(microsPer(() => new ProvenanceIndex().sync(ctx)));
    warm.push(microsPer(() => index.classify(CALL)));
    scratch.push(microsPer(() => classifyToolCall(ctx, { callId: "c2", input: CALL })));
    egress.push(microsPer(() => disallowedDestinations(URL_CALL, ["*.example"])));
  }
  const subject = `${kb} KB untrusted`;
  rows.push(
    { subject, metric: "index the context (once per leg)", unit: "µs", samples: build },
    { subject, metric: "classify a call, warm index (per call)", unit: "µs", samples: warm },
    { subject, metric: "classify a call from scratch (a recovered call)", unit: "µs", samples: scratch },
    { subject, metric: "egress check of a URL argument", unit: "µs", samples: egress },
  );
}
console.log(formatMachine(machine));
console.log(formatTable(rows));
saveIfAsked("provenance", machine, rows);
