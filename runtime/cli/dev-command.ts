/**
 * `sluice dev` (what `make run` starts): the service on its embedded database with the devnet
 * simulator feeding its own observer about one block per second, a status line, the URLs to try,
 * and a clean stop on Ctrl-C.
 */
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { readIngestStatus } from "../chain/status.js";
import { readTip } from "../chain/tip.js";
import { parseConfig } from "../config/index.js";
import { createLogger } from "../internal/logger.js";
import { startService } from "../service.js";
import { ChainSimulator, type SimPayload, postToObserver } from "../simulator/index.js";
import { startStatusLine } from "./status-line.js";

function positiveNumber(text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("must be a number above 0");
  return n;
}

/** Yields from an iterator without closing it when the consumer stops early. */
function* takeWhile<T>(it: Iterator<T>, keep: (v: T) => boolean, held: { value?: T }): Generator<T> {
  for (;;) {
    const next = it.next();
    if (next.done) return;
    if (!keep(next.value)) {
      held.value = next.value;
      return;
    }
    yield next.value;
  }
}

function* rest<T>(it: Iterator<T>, held: { value?: T }): Generator<T> {
  if (held.value !== undefined) yield held.value;
  for (;;) {
    const next = it.next();
    if (next.done) return;
    yield next.value;
  }
}

/**
 * Pure: the curl commands printed to try the API. With a token, each carries an authorization
 * header that reads it from `tokenVariable` in the user's shell.
 */
export function tryCommands(base: string, tokenVariable: string | null): string[] {
  const auth = tokenVariable ? ` -H "authorization: Bearer $${tokenVariable}"` : "";
  const lines = [
    `  status     curl -s${auth} ${base}/status`,
    `  events     curl -s${auth} '${base}/v1/index/events?limit=5'`,
    `  streams    curl -s${auth} '${base}/v1/streams/events?types=ft_transfer&limit=5'`,
    `  live SSE   curl -N${auth} '${base}/v1/streams/events/stream'`,
    `  subgraph   curl -s${auth} '${base}/v1/subgraphs/asset-holdings/holdings?_limit=5'`,
    `  subgraphs  curl -s${auth} ${base}/v1/subgraphs`,
  ];
  if (tokenVariable)
    lines.push("", `  (the commands read the token from $${tokenVariable}: export it in this shell first)`);
  return lines;
}

export function registerDevCommand(program: Command): void {
  program
    .command("dev")
    .description("run the service on the embedded database, fed by the devnet chain simulator (what `make run` starts)")
    .option("--rate <blocks-per-second>", "simulated blocks per second", positiveNumber, 1)
    .option("--seed <seed>", "simulator seed (the same seed continues the same chain after a restart)", "devnet")
    .option("--events-per-block <n>", "mean events per simulated block", (v) => Math.round(positiveNumber(v)), 30)
    .option("--fork-rate <p>", "chance per block of a competing branch (depth 1-3)", Number, 0.05)
    .addHelpText("after", "\nConfiguration comes from the environment (see README); NETWORK should be devnet.")
    .action(async (opts: { rate: number; seed: string; eventsPerBlock: number; forkRate: number }) => {
      if (!(opts.forkRate >= 0 && opts.forkRate <= 1))
        program.error("--fork-rate must be within [0, 1]", { exitCode: 2 });
      const config = parseConfig();
      const logger = createLogger({ level: config.logLevel, format: config.logFormat });
      const service = await startService({ config, logger });
      const stopStatus = startStatusLine(() => readIngestStatus(service.db));
      const abort = new AbortController();

      const simulator = new ChainSimulator(
        {
          seed: opts.seed,
          blocks: Number.POSITIVE_INFINITY,
          eventsPerBlock: opts.eventsPerBlock,
          forkRate: opts.forkRate,
          network: config.network,
        },
        { recordTruth: false },
      );
      const storedHeight = (await readTip(service.db)).blockHeight ?? 0;
      // The token is named, never printed: the shell expands it, and the secret stays out of the
      // terminal's scrollback and whatever captures this output.
      const tokenVariable = config.instanceToken
        ? process.env.INSTANCE_TOKEN
          ? "INSTANCE_TOKEN"
          : "SLUICE_API_KEY"
        : null;
      process.stdout.write(
        [
          "",
          `sluice is running: ${config.network} simulator → observer ${service.observerUrl}, database ${service.db.kind === "pglite" ? config.dataDir : "PostgreSQL"}`,
          "",
          ...tryCommands(service.apiUrl, tokenVariable),
          "",
          storedHeight
            ? `Catching up to the stored tip (height ${storedHeight}), then about ${opts.rate} block/s. Ctrl-C stops.`
            : `About ${opts.rate} block/s. Ctrl-C stops.`,
          "",
        ].join("\n"),
      );

      const feed = (async () => {
        const payloads = simulator.payloads()[Symbol.iterator]();
        const held: { value?: SimPayload } = {};
        // Same seed, same chain: what is already stored is re-posted as fast as accepted (no-ops).
        const behind = (p: SimPayload) => p.path !== "/new_block" || Number(p.body.block_height) <= storedHeight;
        await postToObserver(service.observerUrl, takeWhile(payloads, behind, held), {
          asFastAsAccepted: true,
          signal: abort.signal,
        });
        await postToObserver(service.observerUrl, rest(payloads, held), {
          ratePerSecond: opts.rate,
          signal: abort.signal,
        });
      })().catch((err) => {
        if (!abort.signal.aborted) logger.error({ msg: "simulator stopped", error: err });
      });

      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      abort.abort();
      stopStatus();
      process.stderr.write("stopping…\n");
      await feed;
      await service.stop();
      process.stderr.write("stopped.\n");
    });
}
