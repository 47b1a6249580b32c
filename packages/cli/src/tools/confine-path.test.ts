import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { confinePath, isInside, PathOutsideRootError } from "./confine-path.ts";
import { abortedSignal, createSandbox, type Sandbox } from "./test-support.ts";

let sandbox: Sandbox;
let root: string;

beforeEach(async () => {
  sandbox = await createSandbox();
  root = sandbox.root;
  await mkdir(path.join(root, "a", "b"), { recursive: true });
  await writeFile(path.join(root, "a", "f.txt"), "inside\n");
  await writeFile(path.join(sandbox.outside, "secret.txt"), "secret\n");
});

afterEach(() => sandbox.cleanup());

const refused = (requested: string) => expect(confinePath(root, requested)).rejects.toThrow(PathOutsideRootError);

describe("confinePath: lexical rules", () => {
  it("resolves relative paths, existing or not, against the root", async () => {
    await expect(confinePath(root, "a/f.txt")).resolves.toEqual({
      absolute: path.join(root, "a", "f.txt"),
      display: "a/f.txt",
      root,
    });
    await expect(confinePath(root, "new/dir/file.txt")).resolves.toMatchObject({
      absolute: path.join(root, "new", "dir", "file.txt"),
      display: "new/dir/file.txt",
    });
    await expect(confinePath(root, ".")).resolves.toMatchObject({ absolute: root, display: "." });
    await expect(confinePath(root, "")).resolves.toMatchObject({ absolute: root, display: "." });
  });

  it("accepts .. that stays inside and refuses .. that leaves", async () => {
    await expect(confinePath(root, "a/b/../f.txt")).resolves.toMatchObject({ display: "a/f.txt" });
    await refused("..");
    await refused("../outside/secret.txt");
    await refused("a/../../outside");
    await refused("a/b/../../../root/../outside");
  });

  it("accepts an absolute path inside and refuses one elsewhere", async () => {
    await expect(confinePath(root, path.join(root, "a", "f.txt"))).resolves.toMatchObject({ display: "a/f.txt" });
    await refused(path.join(sandbox.outside, "secret.txt"));
    await refused("/etc/passwd");
    await refused("/");
  });

  it("refuses a path outside even when it leads back in through a symlink", async () => {
    await symlink(root, path.join(sandbox.outside, "back"));
    await refused(path.join(sandbox.outside, "back", "a", "f.txt"));
    await refused("../outside/back/a/f.txt");
  });

  it("does not take /root-evil for a path inside /root", async () => {
    await refused(sandbox.evil);
    await refused(path.join(sandbox.evil, "x.txt"));
    await refused("../root-evil/x.txt");
    expect(isInside(`${root}-evil`, root)).toBe(false);
    expect(isInside(`${root}-evil/x`, root)).toBe(false);
    expect(isInside(path.join(root, "x"), root)).toBe(true);
    expect(isInside(root, root)).toBe(true);
    expect(isInside("/anything", "/")).toBe(true);
  });

  it("explains the refusal", async () => {
    await expect(confinePath(root, "../outside")).rejects.toThrow(
      `path "../outside" is outside the working directory ${root}`,
    );
  });

  it("refuses a NUL character and honours an aborted signal", async () => {
    await expect(confinePath(root, "a\0b")).rejects.toThrow("NUL");
    await expect(confinePath(root, "a", abortedSignal())).rejects.toThrow("cancelled by the test");
  });

  it("reports a working directory that does not exist", async () => {
    await expect(confinePath(path.join(root, "missing"), "x")).rejects.toThrow("does not exist");
  });
});

describe("confinePath: symbolic links", () => {
  it("refuses a symlinked file pointing out", async () => {
    await symlink(path.join(sandbox.outside, "secret.txt"), path.join(root, "leak.txt"));
    await expect(confinePath(root, "leak.txt")).rejects.toThrow(/leads outside .* through a symbolic link/);
  });

  it("refuses a symlinked directory pointing out, and everything below it", async () => {
    await symlink(sandbox.outside, path.join(root, "out"));
    await refused("out");
    await refused("out/secret.txt");
    await refused("out/not-yet/new.txt");
    await refused("a/../out/secret.txt");
  });

  it("refuses a symlink pointing into the /root-evil sibling", async () => {
    await symlink(sandbox.evil, path.join(root, "evil"));
    await refused("evil/x.txt");
  });

  it("refuses a dangling symlink pointing out (a write would land outside)", async () => {
    await symlink(path.join(sandbox.outside, "not-yet.txt"), path.join(root, "dangling.txt"));
    await symlink(path.join(sandbox.outside, "no-dir"), path.join(root, "dangling-dir"));
    await refused("dangling.txt");
    await refused("dangling-dir/new.txt");
  });

  it("refuses relative links that climb out, even through other links", async () => {
    await symlink("../../outside", path.join(root, "a", "up"));
    await refused("a/up/secret.txt");
    // `in` leads to a/b; from there ../../.. is the sandbox base, outside the root.
    await symlink(path.join("a", "b"), path.join(root, "in"));
    await symlink("../../../outside", path.join(root, "a", "b", "climb"));
    await refused("in/climb/secret.txt");
  });

  it("follows links that stay inside to their real target", async () => {
    await symlink("a", path.join(root, "in"));
    await symlink(path.join(root, "a", "f.txt"), path.join(root, "link.txt"));
    await symlink(path.join("a", "later.txt"), path.join(root, "dangling-inside.txt"));
    await expect(confinePath(root, "in/f.txt")).resolves.toMatchObject({ display: "a/f.txt" });
    await expect(confinePath(root, "in/b/../f.txt")).resolves.toMatchObject({ display: "a/f.txt" });
    await expect(confinePath(root, "link.txt")).resolves.toMatchObject({ absolute: path.join(root, "a", "f.txt") });
    await expect(confinePath(root, "dangling-inside.txt")).resolves.toMatchObject({ display: "a/later.txt" });
  });

  it("refuses, as the OS would, a link that walks through a missing directory and back up", async () => {
    await symlink("missing/../b", path.join(root, "a", "odd"));
    await expect(confinePath(root, "a/odd/x.txt")).rejects.toThrow("ENOENT");
  });

  it("reports a symlink loop", async () => {
    await symlink("loop-b", path.join(root, "loop-a"));
    await symlink("loop-a", path.join(root, "loop-b"));
    await expect(confinePath(root, "loop-a/x")).rejects.toThrow("ELOOP");
  });

  it("works when the root itself is reached through a symlink", async () => {
    const alias = path.join(sandbox.base, "alias");
    await symlink(root, alias);
    await expect(confinePath(alias, "a/f.txt")).resolves.toMatchObject({ absolute: path.join(root, "a", "f.txt") });
    await expect(confinePath(alias, path.join(alias, "a"))).resolves.toMatchObject({ display: "a" });
    await expect(confinePath(alias, path.join(root, "a"))).resolves.toMatchObject({ display: "a" });
    await expect(confinePath(alias, "../outside")).rejects.toThrow(PathOutsideRootError);
  });
});

describe("confinePath: property", () => {
  it("accepts a generated path exactly when it stays inside the root, and says where it leads", async () => {
    // `in` leads inside (to a), `out` outside; a, a/b are directories and a/f.txt a file.
    await symlink("a", path.join(root, "in"));
    await symlink(sandbox.outside, path.join(root, "out"));
    const segment = fc.constantFrom("..", ".", "", "a", "b", "f.txt", "new", "in", "out", "root", "root-evil");
    const prefix = fc.constantFrom("", "", "", "/", `${root}/`, `${sandbox.base}/`);
    const separator = fc.constantFrom("/", "//", "/./");
    const requested = fc
      .tuple(prefix, fc.array(fc.tuple(segment, separator), { maxLength: 8 }))
      .map(([start, parts]) => start + parts.map(([name, sep]) => name + sep).join(""));

    await fc.assert(
      fc.asyncProperty(requested, async (candidate) => {
        // The model of the rules: normalize lexically; outside the root, or through `out`, is refused;
        // through `in` is the same as through `a`.
        const relative = path.relative(root, path.resolve(root, candidate));
        const parts = relative === "" ? [] : relative.split(path.sep);
        const escapes = parts[0] === ".." || path.isAbsolute(relative) || parts[0] === "out";
        const result = await confinePath(root, candidate).then(
          (confined) => confined,
          (error: unknown) => error,
        );
        if (escapes) {
          expect(result).toBeInstanceOf(PathOutsideRootError);
          return;
        }
        const real = parts[0] === "in" ? ["a", ...parts.slice(1)] : parts;
        expect(result).toEqual({ absolute: path.join(root, ...real), display: real.join("/") || ".", root });
      }),
      { numRuns: 400 },
    );
  });
});
