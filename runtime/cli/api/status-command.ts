/** `sluice status` (README "CLI"): GET /status through the SDK. */
import type { Command } from "commander";
import { type ApiOptions, clientOf, output, run, withApiOptions } from "./common.js";

export function registerStatusCommand(program: Command): void {
  withApiOptions(
    program.command("status").description("the instance's tip, finality, lag and counts (GET /status)"),
  ).action((o: ApiOptions) => run(async () => output(o, await clientOf(o).status())));
}
