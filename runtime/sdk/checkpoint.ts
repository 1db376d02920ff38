/**
 * A consumer checkpoint in a file (README "SDK"): the last cursor (or SSE frame id) a consumer
 * finished with, so it resumes there after a restart. `save` writes a temporary file and renames
 * it over the checkpoint, so a crash leaves the old value or the new one, never half of one.
 */
import { readFile, rename, writeFile } from "node:fs/promises";

export interface Checkpoint {
  /** The saved cursor, or undefined before the first save. */
  load(): Promise<string | undefined>;
  save(cursor: string): Promise<void>;
}

export function fileCheckpoint(path: string): Checkpoint {
  return {
    async load() {
      try {
        const text = (await readFile(path, "utf8")).trim();
        return text === "" ? undefined : text;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw err;
      }
    },
    async save(cursor) {
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, `${cursor}\n`);
      await rename(tmp, path);
    },
  };
}
