#!/usr/bin/env node
/**
 * The `sluice` CLI (DESIGN.md §1 entry points): every command has --help. A command's module is
 * imported only when that command runs (the runtime, the generator and the simulator take seconds
 * to load): `sluice <command> …` loads that command's registration alone, and the top-level help
 * lists the commands from that table (commands.ts) without loading any.
 */
import { Command, CommanderError } from "commander";
import { ConfigError } from "../internal/errors.js";
import { COMMANDS } from "./commands.js";

/** The command a run names (`sluice <name> …` or `sluice help <name>`), if it is one of ours. */
function commandNamed(argv: readonly string[]): string | undefined {
  const [first, second] = argv;
  const name = first === "help" ? second : first;
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? name : undefined;
}

const program = new Command("sluice")
  .description("Self-hosted Stacks indexer: read API, SSE streams and signed webhooks")
  .showHelpAfterError()
  .exitOverride();

try {
  const name = commandNamed(process.argv.slice(2));
  if (name) await COMMANDS[name].register(program);
  else for (const [n, c] of Object.entries(COMMANDS)) program.command(n).description(c.description);
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  if (err instanceof ConfigError) {
    process.stderr.write(`sluice: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`sluice: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
