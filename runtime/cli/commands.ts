/**
 * The CLI's top-level commands (main.ts): for each, the description `sluice --help` lists and how
 * to register the real command, whose module is imported only then. test/unit/cli/commands.test.ts
 * checks that each registration adds the command it is listed under.
 */
import type { Command } from "commander";

export type Register = (program: Command) => void | Promise<void>;

/** Top-level commands: the description shown in `sluice --help`, and how to register the real command. */
export const COMMANDS: Readonly<Record<string, { description: string; register: Register }>> = {
  start: {
    description: "run the service, or one role of it (--role api|ingest|dispatcher|all)",
    register: async (p) => (await import("./start-command.js")).registerStartCommand(p),
  },
  import: {
    description: "replay a stacks-blockchain-api event-replay TSV through the ingest path",
    register: async (p) => (await import("./import-command.js")).registerImportCommand(p),
  },
  simulate: {
    description: "generate a deterministic Stacks chain as event-observer payloads (TSV or POST)",
    register: async (p) => (await import("../simulator/index.js")).registerSimulateCommand(p),
  },
  generate: {
    description: "regenerate generated/ from specs/*.yaml (--check: fail when generated/ is stale)",
    register: async (p) => (await import("../../generator/commands.js")).registerGeneratorCommands(p),
  },
  subgraphs: {
    description: "work with subgraph specs and the instance's subgraphs",
    register: async (p) => {
      (await import("../../generator/commands.js")).registerGeneratorCommands(p);
      (await import("./api/subgraphs-command.js")).registerSubgraphsApiCommands(p);
    },
  },
  webhooks: {
    description: "manage the instance's webhooks (needs the instance token)",
    register: async (p) => (await import("./api/webhooks-command.js")).registerWebhooksCommands(p),
  },
  events: {
    description: "chain events from the Streams API (events tail: SSE as NDJSON)",
    register: async (p) => (await import("./api/events-command.js")).registerEventsCommands(p),
  },
  status: {
    description: "the instance's tip, finality, lag and counts (GET /status)",
    register: async (p) => (await import("./api/status-command.js")).registerStatusCommand(p),
  },
  mcp: {
    description: "a Model Context Protocol server over stdio with the instance's API as tools",
    register: async (p) => (await import("./api/mcp-command.js")).registerMcpCommand(p),
  },
  dev: {
    description: "run the service on the embedded database, fed by the devnet chain simulator",
    register: async (p) => (await import("./dev-command.js")).registerDevCommand(p),
  },
  dispatcher: {
    description: "run an extra webhook delivery worker against the service's PostgreSQL database",
    register: async (p) => (await import("./dispatcher-command.js")).registerDispatcherCommand(p),
  },
  archive: {
    description: "signed partition bundles of finalized history: publish, serve, restore, credits",
    register: async (p) => {
      (await import("../archive/command.js")).registerArchiveCommands(p);
      // After the archive commands: the credit commands join the same group.
      const credits = await import("../archive/credits/command.js");
      credits.registerArchiveCreditCommands(credits.archiveCommandOf(p));
    },
  },
};
