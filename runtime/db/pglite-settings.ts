/**
 * Memory settings of the embedded database. PGlite starts PostgreSQL with shared_buffers = 128MB,
 * and the buffers live in the WebAssembly heap, which never shrinks: a long-running service
 * touches them all and keeps them resident. The data directory's files are in the OS page cache
 * anyway (PGlite reads them through the host file system), so a smaller pool costs little:
 * 32 MB took the idle service from ~375 MB to ~255 MB resident (docs/benchmarks.md).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";

export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 32;

/** PGlite's own start parameters plus our shared_buffers. */
export function pgliteStartParams(defaults: readonly string[], sharedBuffersMb: number): string[] {
  return [...defaults, "-c", `shared_buffers=${sharedBuffersMb}MB`];
}

/** Whether opening `dataDir` will run initdb (no cluster there yet; in-memory counts as new). */
export function needsInitdb(dataDir: string | undefined): boolean {
  return dataDir === undefined || !existsSync(path.join(dataDir, "PG_VERSION"));
}

/**
 * One full garbage collection. PGlite runs initdb in a WebAssembly instance of its own and drops
 * it afterwards, but nothing makes V8 collect it while the JavaScript heap is quiet: a service
 * started on a fresh data directory kept ~360 MB of initdb memory resident until then. Called once
 * after a cluster is created; the `gc` function is exposed for this call only.
 */
export function collectGarbage(): void {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  gc();
}
