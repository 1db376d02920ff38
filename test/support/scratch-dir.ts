/**
 * A temporary directory made on first use. A describe block's body runs when the file is collected
 * even if the block is skipped, and a skipped block's hooks never run: a directory made in the body
 * would outlive the run. Made on first use (in a hook or a test), it exists only where it is removed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface ScratchDir {
  /** The directory (made by the first read). */
  readonly path: string;
  /** Removes it with everything in it, if it was made. */
  remove(): void;
}

export function scratchDir(prefix: string): ScratchDir {
  let made: string | null = null;
  return {
    get path() {
      made ??= fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      return made;
    },
    remove() {
      if (made !== null) fs.rmSync(made, { recursive: true, force: true });
      made = null;
    },
  };
}
