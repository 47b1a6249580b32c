/**
 * Where archived tasks go before they are deleted: an `ArchiveSink` takes one task's export file
 * (the `sema export` format, which `sema import` reads back) and resolves only once it is durable.
 * The default is a folder, one file per task.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/** A durable destination for archived tasks. */
export interface ArchiveSink {
  /** Where it writes, for messages. */
  readonly name: string;
  /**
   * Store `text`, the export file of `taskId` (and its children). Resolves once it would survive
   * a crash; writing the same task again replaces it (an archive run again after a kill).
   */
  write(taskId: string, text: string): Promise<void>;
}

/**
 * The folder sink: `<dir>/<taskId>.jsonl`, written to a temporary file, fsynced, renamed into
 * place and the folder fsynced, so after a crash the file is either whole or absent.
 */
export function folderSink(dir: string): ArchiveSink {
  return {
    name: dir,
    async write(taskId, text) {
      mkdirSync(dir, { recursive: true });
      // A task id a client chose may hold any character: the file name is its URI encoding.
      const path = join(dir, `${encodeURIComponent(taskId)}.jsonl`);
      // One name per task, not per process: a run again after a kill overwrites what the killed
      // one left half written, and moves it into place, so no stray file stays behind.
      const temp = `${path}.tmp`;
      const fd = openSync(temp, "w");
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      try {
        renameSync(temp, path);
      } catch (error) {
        rmSync(temp, { force: true });
        throw error;
      }
      const folder = openSync(dir, "r");
      try {
        fsyncSync(folder);
      } finally {
        closeSync(folder);
      }
    },
  };
}
