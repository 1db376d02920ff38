/** `sluice simulate`: write a simulated chain to an event-replay TSV or POST it to an event observer. */
import { writeFile } from "node:fs/promises";
import { type Command, InvalidArgumentError } from "commander";
import { NETWORKS, type Network } from "../config/networks.js";
import { MIX_KEYS } from "./actions.js";
import { ChainSimulator } from "./chain.js";
import {
  DEFAULT_OPTIONS,
  MIN_GENESIS_STX,
  type Rate,
  type SigningMode,
  type SimulatorInput,
  type SimulatorOptions,
  parseMix,
  parseRate,
} from "./options.js";
import { postToObserver } from "./output.js";
import { writeSimulation } from "./simulate.js";

/** Bad flag values exit with code 2. */
const USAGE_EXIT_CODE = 2;

interface SimulateFlags {
  out?: string;
  post?: string;
  rate?: Rate;
  follow?: boolean;
  truth?: string;
  seed: string;
  blocks: number;
  eventsPerBlock: number;
  accounts: number;
  network: Network;
  forkRate: number;
  mix?: Partial<SimulatorOptions["mix"]>;
  startHeight: number;
  startBurnHeight: number;
  abortRate: number;
  tenureRate: number;
  sign: SigningMode;
  genesisStx: number;
  hotShare: number;
  quiet?: boolean;
}

function invalid(message: string): InvalidArgumentError {
  const error = new InvalidArgumentError(message);
  error.exitCode = USAGE_EXIT_CODE;
  return error;
}

function integer(min: number) {
  return (text: string): number => {
    const n = Number(text);
    if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min)
      throw invalid(`Expected an integer ≥ ${min}.`);
    return n;
  };
}

function probability(text: string): number {
  const p = Number(text);
  if (text.trim() === "" || !Number.isFinite(p) || p < 0 || p > 1) throw invalid("Expected a number between 0 and 1.");
  return p;
}

function wrap<T>(parse: (text: string) => T) {
  return (text: string): T => {
    try {
      return parse(text);
    } catch (error) {
      throw invalid(`${(error as Error).message}.`);
    }
  };
}

function observerUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid("Expected an http(s) URL such as http://127.0.0.1:3700.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw invalid("Expected an http(s) URL such as http://127.0.0.1:3700.");
  return text;
}

export function registerSimulateCommand(program: Command): void {
  const d = DEFAULT_OPTIONS;
  program
    .command("simulate")
    .description(
      "Generate a deterministic Stacks chain (serialized transactions, Clarity values, forks, reorgs) as " +
        "stacks-node event-observer payloads: /new_burn_block when the burn height advances, then /new_block. " +
        "Write them to an event-replay TSV (with <file>.truth.json, the expected indexing result) or POST them to an observer.",
    )
    .option(
      "--out <file.tsv>",
      "write an event-replay TSV (id, timestamp, path, json per line; what `sluice import` reads) and <file.tsv>.truth.json beside it",
    )
    .option(
      "--post <observer-url>",
      "POST each payload to <observer-url>/new_burn_block or /new_block, retrying while the observer is not up yet",
      observerUrl,
    )
    .option(
      "--rate <n/s|max>",
      "with --post: /new_block requests per second, e.g. 1/s or 0.5/s (each block's burn block goes just before it), or max = next request as soon as the previous one is acknowledged (default: 1/s with --follow, else max)",
      wrap(parseRate),
    )
    .option(
      "--follow",
      "with --post: keep producing blocks forever at --rate until interrupted (SIGINT/SIGTERM); --blocks is ignored",
    )
    .option("--truth <file.json>", "with --post: also write the ground truth there when done (not with --follow)")
    .option(
      "--seed <text>",
      "seed of every choice: keys, hashes, events, forks, timestamps; the same seed gives byte-identical output",
      d.seed,
    )
    .option("--blocks <n>", "height the canonical chain grows by; fork blocks come on top", integer(1), d.blocks)
    .option(
      "--events-per-block <n>",
      "mean events per block: each block draws its target uniformly from [n/2, 3n/2] and adds transactions (1–3 events each) until it is met; tenure-change, coinbase and deploy transactions carry none",
      integer(0),
      d.eventsPerBlock,
    )
    .option(
      "--accounts <n>",
      "user accounts sending transactions (keys derived from the seed), besides the deployer, miner and sBTC operator",
      integer(2),
      d.accounts,
    )
    .option(
      "--network <name>",
      `network whose address versions and contract ids are used: ${NETWORKS.join(", ")}`,
      wrap(network),
      d.network,
    )
    .option(
      "--fork-rate <p>",
      "chance per block that a competing branch of depth 1-3 appears; half of them outgrow the current branch (a reorg), half stay shorter and are orphaned",
      probability,
      d.forkRate,
    )
    .option(
      "--mix <key=weight,...>",
      `relative weights of the actions, replacing the default mix (keys not listed get 0); keys: ${MIX_KEYS.join(", ")}; an event-type key runs an action whose main event has that type, bns runs the BNS-V2 name lifecycle, sbtc the sBTC deposit/withdrawal/key-rotation flows, deploy a contract deploy; default mix: ${MIX_KEYS.map((k) => `${k}=${d.mix[k]}`).join(",")}`,
      wrap(parseMix),
    )
    .option("--start-height <n>", "Stacks height of the first block", integer(1), d.startHeight)
    .option("--start-burn-height <n>", "burn height of the first burn block", integer(1), d.startBurnHeight)
    .option(
      "--abort-rate <p>",
      "chance a contract call is aborted by a post-condition (status abort_by_post_condition, its events committed:false)",
      probability,
      d.abortRate,
    )
    .option(
      "--tenure-rate <p>",
      "chance a block opens a new tenure on a new burn block (0.5 ≈ 2 Stacks blocks per burn block)",
      wrap(tenureRate),
      d.tenureRate,
    )
    .option(
      "--sign <mode>",
      "template: each account signs one transaction for real and its other transactions reuse that signature (fast; txids are still the hash of the bytes); full: every transaction is signed (~1 ms each)",
      wrap(signing),
      d.signing,
    )
    .option(
      "--genesis-stx <n>",
      `STX the first block mints to every account that sends transactions (users, deployer, sBTC operator), as a devnet's genesis credits its configured balances; at least ${MIN_GENESIS_STX}. No account ever spends more than it holds (fees included): an action it cannot pay for is left out`,
      integer(MIN_GENESIS_STX),
      d.genesisStx,
    )
    .option(
      "--hot-share <p>",
      "share of events (0-1) taken by a few hot contracts and holders, as DEX pools and busy accounts take them on mainnet: swaps with an sBTC/STX pool (deployed and seeded in the first block), sBTC deposits and sBTC and STX transfers among the first 3 users; 0 = every event from --mix",
      probability,
      d.hotShare,
    )
    .option("--quiet", "no progress or summary on stderr")
    .action(async (flags: SimulateFlags, command: Command) => {
      const fail = (message: string) =>
        command.error(`error: ${message}`, { exitCode: USAGE_EXIT_CODE, code: "sluice.usage" });
      if (Boolean(flags.out) === Boolean(flags.post))
        fail("exactly one of --out <file.tsv> or --post <observer-url> is required");
      if (flags.follow && !flags.post) fail("--follow needs --post <observer-url>");
      if (flags.rate && !flags.post) fail("--rate only applies with --post");
      if (flags.truth && (!flags.post || flags.follow))
        fail("--truth applies with --post and without --follow (with --out the truth is written beside the TSV)");
      const options: SimulatorInput = {
        seed: flags.seed,
        blocks: flags.follow ? Number.POSITIVE_INFINITY : flags.blocks,
        eventsPerBlock: flags.eventsPerBlock,
        accounts: flags.accounts,
        network: flags.network,
        forkRate: flags.forkRate,
        mix: flags.mix,
        startHeight: flags.startHeight,
        startBurnHeight: flags.startBurnHeight,
        abortRate: flags.abortRate,
        tenureRate: flags.tenureRate,
        signing: flags.sign,
        genesisStx: flags.genesisStx,
        hotShare: flags.hotShare,
      };
      const log = (line: string) => {
        if (!flags.quiet) process.stderr.write(`${line}\n`);
      };
      if (flags.out) await runToFile(options, flags.out, log);
      else await runToObserver(options, flags, log);
    });
}

async function runToFile(options: SimulatorInput, out: string, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const { lines, truth, truthPath } = await writeSimulation(options, out);
  const seconds = (performance.now() - started) / 1000;
  log(
    `wrote ${lines} requests (${truth.newBlockCount} blocks, ${truth.newBurnBlockCount} burn blocks, ${truth.eventCount} canonical events, ` +
      `${truth.forks.length} forks) to ${out} in ${seconds.toFixed(1)} s (${Math.round(truth.newBlockCount / seconds)} blocks/s); truth: ${truthPath}`,
  );
}

async function runToObserver(
  options: SimulatorInput,
  flags: SimulateFlags,
  log: (line: string) => void,
): Promise<void> {
  const simulator = new ChainSimulator(options, { recordTruth: !flags.follow });
  const rate = flags.rate ?? (flags.follow ? { perSecond: 1 } : "max");
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  let lastLog = Date.now();
  try {
    const result = await postToObserver(flags.post as string, simulator.payloads(), {
      ratePerSecond: rate === "max" ? undefined : rate.perSecond,
      asFastAsAccepted: rate === "max",
      signal: controller.signal,
      onProgress: ({ requests, blocks, payload }) => {
        if (Date.now() - lastLog < 10_000) return;
        lastLog = Date.now();
        log(`posted ${requests} requests (${blocks} blocks, last height ${String(payload.body.block_height ?? "-")})`);
      },
    });
    log(
      `posted ${result.requests} requests (${result.blocks} blocks) to ${flags.post}${result.aborted ? " (stopped)" : ""}`,
    );
    if (flags.truth && !result.aborted) {
      await writeFile(flags.truth, `${JSON.stringify(simulator.truth(), null, 2)}\n`);
      log(`truth: ${flags.truth}`);
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

function network(text: string): Network {
  if (!(NETWORKS as readonly string[]).includes(text)) throw new Error(`network must be one of ${NETWORKS.join(", ")}`);
  return text as Network;
}

function signing(text: string): SigningMode {
  if (text !== "template" && text !== "full") throw new Error("sign mode must be template or full");
  return text;
}

function tenureRate(text: string): number {
  const p = Number(text);
  if (text.trim() === "" || !(p > 0 && p <= 1)) throw new Error("tenure rate must be in (0, 1]");
  return p;
}
