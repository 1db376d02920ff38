/**
 * Where an archive's files live, behind one small interface: the filesystem now; an S3-compatible
 * bucket can implement the same five calls without changing publish or serve. Keys are relative
 * paths with `/` separators (`bundles/…`, `manifests/…`, `latest.json`, `keys.json`).
 */
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";

export interface ArchiveStorage {
  /** Size in bytes, or null when the object does not exist. */
  size(key: string): Promise<number | null>;
  read(key: string): Promise<Buffer | null>;
  /** A byte range [start, end] (inclusive) of an object as a stream. */
  readRange(key: string, start: number, end: number): Readable;
  /**
   * Writes an object whole, from bytes or a stream of them (a bundle is streamed: memory stays
   * bounded): readers see the old object or the new one, never a part.
   */
  write(key: string, data: Uint8Array | AsyncIterable<Uint8Array>): Promise<void>;
  list(prefix: string): Promise<string[]>;
}

function checkKey(key: string): string {
  if (key === "" || key.startsWith("/") || key.split("/").some((p) => p === ".." || p === "." || p === ""))
    throw new Error(`bad archive object key: ${key}`);
  return key;
}

export function filesystemStorage(root: string): ArchiveStorage {
  const abs = (key: string) => path.join(root, ...checkKey(key).split("/"));
  return {
    async size(key) {
      try {
        const st = await fs.promises.stat(abs(key));
        return st.isFile() ? st.size : null;
      } catch {
        return null;
      }
    },
    async read(key) {
      try {
        return await fs.promises.readFile(abs(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
    readRange(key, start, end) {
      return fs.createReadStream(abs(key), { start, end });
    },
    async write(key, data) {
      const file = abs(key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      const handle = await fs.promises.open(tmp, "w");
      try {
        if (data instanceof Uint8Array) await handle.writeFile(data);
        else for await (const chunk of data) await handle.write(chunk);
        await handle.sync();
      } catch (err) {
        await handle.close();
        await fs.promises.rm(tmp, { force: true });
        throw err;
      }
      await handle.close();
      await fs.promises.rename(tmp, file);
    },
    async list(prefix) {
      const dir = path.join(root, ...checkKey(prefix).split("/"));
      try {
        return (await fs.promises.readdir(dir))
          .filter((f) => !f.endsWith(".tmp"))
          .map((f) => `${prefix}/${f}`)
          .sort();
      } catch {
        return [];
      }
    },
  };
}
