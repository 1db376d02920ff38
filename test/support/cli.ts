/** Runs the `sluice` CLI from source as a child process (the same entry `npm` users get, via tsx). */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./fixtures.js";

export const CLI_ENTRY = path.join(REPO_ROOT, "runtime/cli/main.ts");
const TSX = path.join(REPO_ROOT, "node_modules/.bin/tsx");

export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(TSX, [CLI_ENTRY, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: "error", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => (stdout += d));
    child.stderr?.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`sluice ${args.join(" ")} timed out\n${stderr}`));
    }, timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
