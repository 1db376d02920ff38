/**
 * Bench helper: runs an import (the compiled `sluice import`, build first, or another script that
 * prints its summary) as its own process, the way users run it, and reads its summary. Reports the process wall (start-up and migrations included) and
 * the import's own time, and the CPU time the hypervisor gave to other guests meanwhile (Linux
 * "steal"): on a shared virtual machine a large figure there means the run was slowed from outside.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../support/fixtures.js";

export const CLI = path.join(REPO_ROOT, "dist/runtime/cli/main.js");

export interface CliImportFigures {
  /** Process wall, start-up included. */
  seconds: number;
  /** The import's own time as its summary prints it (start-up and migrations excluded). */
  importSeconds: number;
  blocks: number;
  events: number;
  rssMb: number;
  /** CPU seconds stolen by the hypervisor during the run, summed over cores (null off Linux). */
  stealSeconds: number | null;
}

/** Total steal ticks from /proc/stat (USER_HZ, 100 per second on Linux), or null. */
function stealTicks(): number | null {
  try {
    const cpu = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
    return Number(cpu[8]);
  } catch {
    return null;
  }
}

/**
 * Runs an import process (`node <nodeArgs>`) whose stdout ends with the import summary
 * (runtime/cli/import.ts describeSummary) and reads its figures. Throws with the output when it fails.
 */
export function runImportProcess(nodeArgs: string[], env: Record<string, string>): CliImportFigures {
  const stealBefore = stealTicks();
  const started = performance.now();
  const res = spawnSync(process.execPath, nodeArgs, {
    env: { ...process.env, LOG_LEVEL: "error", ...env },
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const seconds = (performance.now() - started) / 1000;
  const stealAfter = stealTicks();
  if (res.status !== 0) throw new Error(`import failed (${res.status}):\n${res.stderr}\n${res.stdout}`);
  const out = res.stdout;
  return {
    seconds,
    importSeconds: Number(/ in ([\d.]+)s\n/.exec(out)?.[1] ?? seconds),
    blocks: Number(/(\d+) blocks \(/.exec(out)?.[1] ?? 0),
    events: Number(/events (\d+)/.exec(out)?.[1] ?? 0),
    rssMb: Number(/peak RSS (\d+) MB/.exec(out)?.[1] ?? 0),
    stealSeconds: stealBefore === null || stealAfter === null ? null : (stealAfter - stealBefore) / 100,
  };
}

/** The compiled `sluice import` of `file`; `args` go before the file (e.g. ["--batch-size", "16"]). */
export function runCliImport(file: string, env: Record<string, string>, args: string[] = []): CliImportFigures {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  return runImportProcess([CLI, "import", "--quiet", ...args, file], env);
}

/** "62,019 events in 13.1 s (process wall): 4,734 events/s; import alone 12.3 s: 5,042 events/s; steal 0.1 s" */
export function describeCliImport(f: CliImportFigures): string {
  const rate = (s: number) => Math.round(f.events / s).toLocaleString("en-US");
  const steal = f.stealSeconds === null ? "" : `; hypervisor steal ${f.stealSeconds.toFixed(1)} CPU-s`;
  return (
    `${f.blocks} blocks, ${f.events.toLocaleString("en-US")} events in ${f.seconds.toFixed(1)} s (process wall): ${rate(f.seconds)} events/s; ` +
    `import alone ${f.importSeconds.toFixed(1)} s: ${rate(f.importSeconds)} events/s${steal}`
  );
}
