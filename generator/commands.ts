/**
 * CLI commands of the generator (DESIGN.md §1 entry points; the Makefile calls them):
 * `sluice generate [--check]` and `sluice subgraphs validate <file>`. The only generator module
 * that prints.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { modelSpec } from "./model-spec.js";
import { GENERATED_DIR } from "./repo-paths.js";
import { formatSpecError, SpecValidationError } from "./spec-error.js";

export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

const consoleOutput: CommandOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export function registerGeneratorCommands(program: Command, output: CommandOutput = consoleOutput): void {
  program
    .command("generate")
    .description("regenerate generated/ from specs/*.yaml (--check: fail when generated/ is stale)")
    .option("--check", "compare instead of writing; exit 1 with a diff when generated/ is stale")
    .option("--dir <dir>", "the generated/ directory", GENERATED_DIR)
    .action(async (options: { check?: boolean; dir: string }) => {
      process.exitCode = await runGenerate(options, output);
    });

  const subgraphs =
    program.commands.find((command) => command.name() === "subgraphs") ??
    program.command("subgraphs").description("work with subgraph specs");
  subgraphs
    .command("validate <file>")
    .description("validate a subgraph spec (YAML or JSON); prints file:line:col: message per error")
    .action((file: string) => {
      process.exitCode = runValidate(file, output);
    });
}

/** `generate [--check]`; returns the exit code. */
export async function runGenerate(options: { check?: boolean; dir: string }, output: CommandOutput): Promise<number> {
  // Loaded here, not at start-up: the emitters pull in ts-morph and openapi-typescript.
  const { checkGenerated, writeGenerated } = await import("./write.js");
  try {
    if (options.check === true) {
      const result = await checkGenerated(options.dir);
      (result.ok ? output.out : output.err)(result.report);
      return result.ok ? 0 : 1;
    }
    const summary = await writeGenerated(options.dir);
    for (const path of summary.written) output.out(`wrote ${path}\n`);
    for (const path of summary.removed) output.out(`removed ${path}\n`);
    if (summary.written.length + summary.removed.length === 0) output.out("generated/ is up to date\n");
    return 0;
  } catch (error) {
    if (!(error instanceof SpecValidationError)) throw error;
    for (const specError of error.errors) output.err(`${formatSpecError(specError)}\n`);
    return 1;
  }
}

/** `subgraphs validate <file>`; returns the exit code. */
export function runValidate(file: string, output: CommandOutput): number {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    output.err(`${file}: cannot read: ${(error as Error).message}\n`);
    return 1;
  }
  const result = modelSpec({ file, text });
  if (result.ok) {
    output.out("ok\n");
    return 0;
  }
  for (const specError of result.errors) output.err(`${formatSpecError(specError)}\n`);
  return 1;
}
