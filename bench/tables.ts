/**
 * `npm run bench:tables`: renders the generated sections of bench/README.md (and of the docs that
 * quote its figures) from the results files under bench/results/. `--check` writes nothing and
 * exits 1 if a section is out of date.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { generateFiles } from "./lib/results-tables.ts";

const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
const repo = fileURLToPath(new URL("../", import.meta.url));
let stale = 0;
for (const { file, current, generated } of generateFiles(repo)) {
  if (current === generated) continue;
  stale++;
  if (values.check) console.error(`${file}: its generated sections are out of date (npm run bench:tables)`);
  else {
    writeFileSync(join(repo, file), generated);
    console.log(`${file}: updated`);
  }
}
if (values.check && stale > 0) process.exit(1);
if (stale === 0) console.log("Every generated section is up to date.");
