/**
 * The CLI's lazy command table (runtime/cli/commands.ts): each entry's registration adds the
 * command it is listed under, so `sluice <name>` (which loads that entry alone) finds it.
 */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../../runtime/cli/commands.js";

describe("CLI command table", () => {
  it("each registration adds the command listed under its name", async () => {
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const program = new Command("sluice");
      await entry.register(program);
      const command = program.commands.find((c) => c.name() === name);
      expect(command, name).toBeDefined();
      expect(entry.description.length, name).toBeGreaterThan(10);
    }
  });
});
