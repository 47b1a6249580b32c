import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "./main.ts";
import { captureIo } from "./test-support/capture-io.ts";

describe("sema --version", () => {
  it("prints the CLI's version and the Node.js it runs on, for --version, -v and version", async () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-v", "version"]) {
      const { io, out, err } = captureIo("/nonexistent");
      expect(await main([flag], io)).toBe(0);
      expect(out()).toBe(`sema ${manifest.version} (Node.js ${process.versions.node})\n`);
      expect(err()).toBe("");
    }
  });
});
