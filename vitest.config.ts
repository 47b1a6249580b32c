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
    // Two CI runs lost a test file's worker to a V8 abort ("Check failed: jit_page.has_value()"),
    // V8's tracking of JIT pages for memory-protection keys, both in SQLite files whose stores run
    // a writer thread. Turning the keys off in test workers avoids that path and changes nothing
    // the tests observe; the writer thread leaves the flag out of its own options (a worker refuses
    // V8 flags, which hold for the whole process anyway).
    execArgv: ["--no-memory-protection-keys"],
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
