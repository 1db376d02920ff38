import { Command } from "commander";
import { registerImportCommand } from "../../../runtime/cli/import-command.js";
import { registerSimulateCommand } from "../../../runtime/simulator/command.js";
const program = new Command("sluice").exitOverride();
registerImportCommand(program);
registerSimulateCommand(program);
await program.parseAsync(process.argv);
