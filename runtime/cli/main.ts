#!/usr/bin/env node
/** The `sluice` CLI (DESIGN.md §1 entry points): every command has --help. */
import { Command, CommanderError } from "commander";
import { ConfigError } from "../internal/errors.js";
import { archiveCommandOf, registerArchiveCreditCommands } from "../archive/credits/command.js";
import { registerGeneratorCommands } from "../../generator/commands.js";
import { registerArchiveCommands } from "../archive/command.js";
import { registerSimulateCommand } from "../simulator/index.js";
import { registerDevCommand } from "./dev-command.js";
import { registerDispatcherCommand } from "./dispatcher-command.js";
import { registerImportCommand } from "./import-command.js";

const program = new Command("sluice")
  .description("Self-hosted Stacks indexer: read API, SSE streams and signed webhooks")
  .showHelpAfterError()
  .exitOverride();

registerImportCommand(program);
registerSimulateCommand(program);
registerGeneratorCommands(program);
registerDevCommand(program);
registerDispatcherCommand(program);
registerArchiveCommands(program);
// After the archive commands: the credit commands join the same group.
registerArchiveCreditCommands(archiveCommandOf(program));

try {
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
