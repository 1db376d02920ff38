/**
 * The package as a user installs it (README "SDK"): built into a staging copy, packed with
 * `npm pack`, installed from the tarball into a scratch project outside this repository, and
 * README's examples that import `sluice/…` type-checked there against the installed declarations;
 * the SDK example then runs against a live instance (its SSE loop is stopped once it has saved a
 * checkpoint). Installing needs the npm registry (the tarball's dependencies): skipped when the
 * registry cannot be reached.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { simulateChain } from "../../runtime/simulator/index.js";
import { createTestDb } from "../support/db.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { postObserver, startTestService, waitFor } from "../support/service.js";

const run = promisify(execFile);
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

async function registryReachable(): Promise<boolean> {
  try {
    await run(NPM, ["ping"], { timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}
const reachable = await registryReachable();

/** README's ```ts blocks that import from the package. */
function readmeExamples(): string[] {
  const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .filter((code) => code.includes('from "sluice/'));
}

// What the examples leave to the reader (their handler functions, an Express app).
const DECLARED = `declare function handle(x: unknown): void;
declare function undo(x: unknown): void;
declare function apply(x: unknown): void;
declare const express: { raw(o: { type: string }): unknown };
declare const app: { post(path: string, ...handlers: unknown[]): void };
`;

describe.skipIf(!reachable)("the packed package, installed in a scratch project", () => {
  const root = mkdtempSync(path.join(tmpdir(), "sluice-package-"));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("installs from its tarball; README's examples type-check there, and the SDK example runs", async () => {
    // Built apart from dist/, which other tests may be reading. Emitted without re-checking types
    // (--noCheck: the same JavaScript and declarations, a fifth less CPU): the sources' types are
    // `make check`'s subject, this test's is the package built from them.
    const staging = path.join(root, "staging");
    mkdirSync(staging);
    const tsc = path.join(REPO_ROOT, "node_modules/typescript/bin/tsc");
    const emit = ["-p", "tsconfig.build.json", "--noCheck", "--outDir", path.join(staging, "dist")];
    await run(process.execPath, [tsc, ...emit], {
      cwd: REPO_ROOT,
      timeout: 240_000,
    });
    for (const f of ["package.json", "README.md", "CHANGELOG.md"])
      writeFileSync(path.join(staging, f), readFileSync(path.join(REPO_ROOT, f)));
    const scratch = path.join(root, "app");
    mkdirSync(scratch);
    const { stdout: packed } = await run(NPM, ["pack", "--silent", "--pack-destination", scratch], {
      cwd: staging,
      timeout: 120_000,
    });
    const tarball = path.join(scratch, packed.trim().split("\n").pop() as string);
    expect(existsSync(tarball)).toBe(true);

    writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    await run(
      NPM,
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", tarball],
      { cwd: scratch, timeout: 300_000 },
    );
    expect(existsSync(path.join(scratch, "node_modules/sluice/dist/runtime/sdk/index.d.ts"))).toBe(true);

    // Type-checked against what was installed, nothing of this repository but the compiler and Node's types.
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(2);
    const files = examples.map((code, i) => {
      const file = `example-${i}.ts`;
      writeFileSync(path.join(scratch, file), `${DECLARED}${code}\nexport {};\n`);
      return file;
    });
    writeFileSync(
      path.join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noImplicitAny: false,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [path.join(REPO_ROOT, "node_modules/@types")],
        },
        files,
      }),
    );
    await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: scratch, timeout: 120_000 }).catch((err) => {
      throw new Error(`README examples do not type-check against the installed package:\n${err.stdout}`);
    });

    // The SDK example, run against a live instance: it walks the Index, lists webhooks, then
    // follows the stream and saves its checkpoint.
    const sdkExample = examples.find((code) => code.includes("createSluiceClient"));
    expect(sdkExample).toBeDefined();
    const testDb = await createTestDb();
    const svc = await startTestService(testDb.db, { NETWORK: "devnet" });
    try {
      const { payloads } = simulateChain({ seed: "package-install", blocks: 6, eventsPerBlock: 6 });
      for (const p of payloads) await postObserver(svc.observerUrl, p.path, JSON.stringify(p.body));
      await svc.idle();
      const events = (await (await fetch(`${svc.apiUrl}/v1/index/events?limit=1000`)).json()) as { events: unknown[] };
      const runnable = `const handle = (x: unknown) => console.log(JSON.stringify(x));\n${(
        sdkExample as string
      ).replace("http://127.0.0.1:3800", svc.apiUrl)}\nexport {};\n`;
      writeFileSync(path.join(scratch, "run-sdk.mjs"), await transpile(runnable));
      const lines: string[] = [];
      child = spawn(process.execPath, ["run-sdk.mjs"], { cwd: scratch, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr?.on("data", (d) => {
        stderr += d;
      });
      child.stdout?.on("data", (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean)));
      // The stream's first frames come from the chain already stored: a checkpoint gets saved.
      await waitFor(() => existsSync(path.join(scratch, "stx.cursor")), { timeoutMs: 60_000 }).catch(() => {
        throw new Error(`the SDK example saved no checkpoint; stderr:\n${stderr}`);
      });
      child.kill("SIGKILL");
      // Every stored event went through handle() once from the Index walk, before the stream began.
      const walked = lines.filter((l) => l.includes('"event_index"')).length;
      expect(walked).toBeGreaterThanOrEqual(events.events.length);
      expect(readFileSync(path.join(scratch, "stx.cursor"), "utf8").trim()).not.toBe("");
    } finally {
      await svc.stop();
      await testDb.drop();
    }
  });
});

/** TypeScript → JavaScript with the repository's compiler (types only are removed). */
async function transpile(source: string): Promise<string> {
  const ts = (await import("typescript")).default;
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}
