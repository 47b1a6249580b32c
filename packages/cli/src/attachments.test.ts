// `sema run --attach`: the files reach the task as content parts, stored once in the SQLite file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@sema-agent/sqlite";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./context.ts";
import { main } from "./main.ts";

describe("sema run --attach", () => {
  it("adds images and files to the objective, bytes in the blob table, references in the log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-attach-"));
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    writeFileSync(join(dir, "shot.PNG"), png);
    writeFileSync(join(dir, "notes.pdf"), "%PDF-1.4");
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "A screenshot and a PDF." }] }));
    const db = join(dir, "test.db");
    let out = "";
    let err = "";
    const io: CliIo = {
      stdout: { write: (t: string) => (out += t), isTTY: false },
      stderr: { write: (t: string) => (err += t) },
      env: {},
      cwd: dir,
    };
    const args = ["run", "What are these?", "--model", `script:${script}`, "--db", db];
    expect(await main([...args, "--attach", "shot.PNG", "--attach", "notes.pdf"], io), err).toBe(0);
    const taskId = /Task (\S+) started/.exec(out)?.[1] ?? "";
    const store = new SqliteStore({ path: db });
    try {
      const input = (await store.read(taskId)).find((event) => event.type === "human_input");
      expect(input).toMatchObject({
        v: 2,
        text: "What are these?",
        attachments: [
          { type: "image", mediaType: "image/png", size: png.length },
          { type: "file", mediaType: "application/pdf", size: 8, filename: "notes.pdf" },
        ],
      });
      const digest = input?.type === "human_input" ? input.attachments?.[0] : undefined;
      const bytes = digest !== undefined && "digest" in digest ? await store.getBlob(digest.digest) : undefined;
      expect(Buffer.from(bytes ?? []).equals(png)).toBe(true);
    } finally {
      await store.close();
    }
    err = "";
    expect(await main([...args, "--attach", "missing.png"], io)).toBe(2);
    expect(err).toContain("--attach missing.png: ENOENT");
  });
});
