import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources (the "source" export condition), so tests
// never need a build first and always run the code beside them.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "bench/**/*.test.ts",
      "scripts/**/*.test.ts",
      "examples/**/*.test.ts",
      "docs/**/*.test.ts",
    ],
    testTimeout: 30_000,
    // Test files whose SQLite stores run worker threads (the writer, the checkpointer) lost their
    // process to a V8 abort now and then ("Check failed: jit_page.has_value()", three CI runs and
    // one of six local runs of packages/sqlite). Symbolized, the stack is WebAssembly's: a
    // wasm-to-JS wrapper tiering up (Runtime_TierUpWasmToJSWrapper) frees old wrapper code that
    // V8's JIT page registry no longer knows, while other isolates come and go. Running from
    // sources, every worker strips its modules' types with Node's WebAssembly stripper, so a file
    // that starts 155 writer threads churns wasm code across isolates; the built package's workers
    // load JavaScript and run no WebAssembly. A wrapper tier-up budget no test reaches keeps that
    // path shut; memory-protection keys off closes the same registry's path on hosts that have
    // them. Both are V8 flags: they hold for the whole process, worker threads included (the
    // store's workers leave them out of their own options, which a worker refuses).
    // scripts/wasm-wrapper-abort.ts reproduces the abort without SQLite or vitest.
    execArgv: ["--no-memory-protection-keys", "--wasm-wrapper-tiering-budget=2147483647"],
    // The studio's bundle (packages/server/console/dist/studio.js), built from its modules before
    // any test runs: a test that serves the studio always serves the modules as they are now,
    // without a `npm run build` after each edit. Bundling takes well under a second.
    globalSetup: ["./scripts/build-console.ts"],
    // A failing property test's seed replays it (FC_SEED, FC_PATH): see scripts/vitest-setup.ts.
    setupFiles: ["./scripts/vitest-setup.ts"],
    // eventsource-parser (imported by the AI SDK providers) publishes a "source" condition too,
    // pointing at its TypeScript, which Node will not load from node_modules. Inlining it and its
    // importers makes Vite resolve and transform them instead of handing them to Node. The MCP
    // SDK's client imports eventsource (and so the parser) too, and so does the `ai` package the
    // chat tests run as the client.
    server: {
      deps: {
        inline: [
          /eventsource-parser/,
          /@ai-sdk\//,
          /@modelcontextprotocol\/sdk/,
          /node_modules\/eventsource\//,
          /\/node_modules\/ai\//,
        ],
      },
    },
  },
});
