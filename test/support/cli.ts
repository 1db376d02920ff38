/**
 * Runs the `sluice` CLI from source as a child process (the same entry `npm` users get): from the
 * run's transpiled copy of the sources when the test run made one (test/support/transpiled-sources.ts),
 * else through tsx.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./fixtures.js";

const TRANSPILED = process.env.SLUICE_TEST_JS_DIR;
/** A source file's module as the children run it: its transpiled copy, or the file itself. */
function entry(file: string): string {
  return TRANSPILED ? path.join(TRANSPILED, file.replace(/\.ts$/, ".js")) : path.join(REPO_ROOT, file);
}

export const CLI_ENTRY = entry("runtime/cli/main.ts");
/**
 * Node's options for a child running CLI_ENTRY or SERVICE_ENTRY. `node --import tsx` keeps the
 * CLI in ONE process, so a signal reaches the real process (the tsx launcher would spawn a child
 * and a SIGKILL would orphan it).
 */
export const NODE_ARGS = TRANSPILED ? ["--enable-source-maps"] : ["--import", "tsx"];

export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...NODE_ARGS, CLI_ENTRY, ...args], {
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

export const SERVICE_ENTRY = entry("runtime/main.ts");

export interface ServiceProcess {
  child: ChildProcess;
  apiUrl: string;
  /** Empty when the role does not observe. */
  observerUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Starts `npm start`'s entry from source on ephemeral ports; resolves once it logs that it started. */
export function startServiceProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...NODE_ARGS, SERVICE_ENTRY], {
    cwd: REPO_ROOT,
    env: { ...process.env, API_PORT: "0", OBSERVER_PORT: "0", LOG_LEVEL: "info", LOG_FORMAT: "json", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once("exit", (code, signal) => r({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`service did not start:\n${err}`));
    }, timeoutMs);
    child.stderr?.on("data", (d) => {
      err += d;
      // A role without an observer (ROLE=api, dispatcher) logs "observer":null.
      const m = /"msg":"sluice started".*?"api":"([^"]+)".*?"observer":(?:"([^"]+)"|null)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, apiUrl: m[1], observerUrl: m[2] ?? "", exited, stderr: () => err });
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before starting:\n${err}`));
    });
  });
}
