/**
 * The TSDoc gate of `npm run docs:api`: a public name without TSDoc fails the run. The fixture
 * has two packages, like the real run has many, since a run over several packages is where
 * TypeDoc's check used to report nothing (see `runTypeDoc`). The real packages pass it in the
 * docs build that docs/site.test.ts runs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { publicPackages, runTypeDoc } from "./api-reference.ts";

const fixture = fileURLToPath(new URL("./fixtures/api-reference/", import.meta.url));
const tsconfig = join(fixture, "tsconfig.json");
const out = mkdtempSync(join(tmpdir(), "sema-api-reference-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

// ANSI colours aside, so the message reads as TypeDoc wrote it.
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

describe("npm run docs:api", () => {
  const packages = publicPackages(join(fixture, "packages"));

  it("fails when one package of several has a public name without TSDoc, and names it", { timeout: 120_000 }, () => {
    expect(packages.map((pkg) => pkg.name)).toEqual(["@fixture/alpha", "@fixture/beta"]);
    const run = runTypeDoc(packages, { out: join(out, "both"), tsconfig, pipe: true });
    expect(run.status).not.toBe(0);
    const output = plain(run.output);
    expect(output).toMatch(/@fixture\/beta\.undocumentedProbe \(\w+\), defined in .*does not have any documentation/);
    // Only the undocumented name: the documented ones beside it pass.
    expect(output).not.toMatch(/beta\.documentedProbe \(|alpha\.documented \(/);
  });

  it("passes the same options over a package whose every public name has TSDoc", { timeout: 120_000 }, () => {
    const alpha = packages.filter((pkg) => pkg.name === "@fixture/alpha");
    const run = runTypeDoc(alpha, { out: join(out, "alpha"), tsconfig, pipe: true });
    expect(plain(run.output)).not.toContain("does not have any documentation");
    expect(run.status).toBe(0);
    expect(readFileSync(join(out, "alpha", "index.md"), "utf8")).toContain("documented");
  });

  it("takes the entry points of every published package of the repository from their exports", () => {
    const real = new Map(publicPackages().map((pkg) => [pkg.name, pkg.entryPoints]));
    expect(real.get("@sema-agent/core")?.map((file) => file.split("/packages/core/")[1])).toEqual(
      expect.arrayContaining(["src/index.ts", "src/protocol/index.ts", "src/store-kit.ts", "src/testing/index.ts"]),
    );
    expect(real.get("@sema-agent/sqlite")?.length).toBe(2);
    for (const [name, files] of real) for (const file of files) expect(existsSync(file), `${name}: ${file}`).toBe(true);
  });
});
