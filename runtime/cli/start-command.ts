/**
 * `sluice start [--role api|ingest|dispatcher|all]`: the service, as `npm start` runs it
 * (runtime/main.ts), with its role given on the command line instead of ROLE. The flag wins over
 * the variable; everything else comes from the environment as usual.
 */
import type { Command } from "commander";
import { isRole, ROLES } from "../scale/roles.js";

export function registerStartCommand(program: Command): void {
  program
    .command("start")
    .description("run the service (observer, ingest, API, webhook delivery), or one role of it")
    .option("--role <role>", `this process's share of the service: ${ROLES.join(", ")} (default: ROLE, else all)`)
    .addHelpText(
      "after",
      '\nRoles other than all need PostgreSQL (DATABASE_URL). See the README, "Running several processes".\nStops on SIGINT/SIGTERM after the block in flight.',
    )
    .action(async (opts: { role?: string }) => {
      if (opts.role !== undefined) {
        if (!isRole(opts.role)) {
          program.error(`sluice start: --role ${JSON.stringify(opts.role)} is not one of: ${ROLES.join(", ")}`, {
            exitCode: 2,
          });
        }
        process.env.ROLE = opts.role;
      }
      // The entry point reads the environment, starts the service and handles the signals.
      await import("../main.js");
    });
}
