/**
 * Standalone generator entry (the Makefile runs it before the CLI is built):
 *   npx tsx generator/main.ts [--check]                 generate (or check) generated/
 *   npx tsx generator/main.ts subgraphs validate <file>  validate one spec
 */
import { Command } from "commander";
import { registerGeneratorCommands } from "./commands.js";

const program = new Command("sluice-generate").description("sluice subgraph generator");
registerGeneratorCommands(program);
const args = process.argv.slice(2);
const command = args[0] === "subgraphs" || args[0] === "generate" ? args : ["generate", ...args];
await program.parseAsync(command, { from: "user" });
