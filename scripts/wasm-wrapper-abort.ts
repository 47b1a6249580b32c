/**
 * Reproduces the V8 abort the test runner guards against (see `execArgv` in vitest.config.ts):
 * worker threads that load TypeScript sources, each stripping types with Node's WebAssembly
 * stripper, come and go three at a time; now and then a wasm-to-JS wrapper tiering up frees code
 * V8's JIT page registry no longer knows ("Check failed: jit_page…", exit code 133).
 *
 *   node scripts/wasm-wrapper-abort.ts                                          # aborted 1 run of 3
 *   node --wasm-wrapper-tiering-budget=2147483647 scripts/wasm-wrapper-abort.ts # 0 of 5
 *
 * Run it again on a new Node.js: when it no longer aborts without the flag, the flag can go.
 */
import { Worker } from "node:worker_threads";

const WORKERS = Number(process.argv[2] ?? 600);
const AT_ONCE = 3;
// Any module of the sources with a few imports: each worker strips the types of all of them.
const source = new URL("../packages/sqlite/src/write-commands.ts", import.meta.url).href;

let started = 0;
async function lane(): Promise<void> {
  while (started < WORKERS) {
    started++;
    await new Promise((resolve, reject) => {
      const worker = new Worker(`import(${JSON.stringify(source)}).then(() => process.exit(0))`, {
        eval: true,
        execArgv: ["--conditions=source"],
      });
      worker.on("error", reject);
      worker.on("exit", resolve);
    });
  }
}

await Promise.all(Array.from({ length: AT_ONCE }, lane));
console.log(`${started} workers came and went without an abort`);
