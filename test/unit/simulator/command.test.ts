// `sluice simulate`: help text, exit code 2 on bad values, writing a TSV with its truth.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, CommanderError } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { NETWORK_CONTRACTS } from "../../../runtime/config/networks.js";
import { registerSimulateCommand } from "../../../runtime/simulator/command.js";

function program(): { program: Command; errors: string[] } {
  const errors: string[] = [];
  const root = new Command("sluice")
    .exitOverride()
    .configureOutput({ writeErr: (text) => errors.push(text), writeOut: () => {} });
  registerSimulateCommand(root);
  return { program: root, errors };
}

async function run(args: string[]): Promise<{ error: CommanderError | null; errors: string[] }> {
  const { program: root, errors } = program();
  try {
    await root.parseAsync(["node", "sluice", "simulate", ...args]);
    return { error: null, errors };
  } catch (error) {
    if (error instanceof CommanderError) return { error, errors };
    throw error;
  }
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("sluice simulate", () => {
  it("documents every flag in --help", () => {
    const simulate = program().program.commands.find((c) => c.name() === "simulate") as Command;
    const help = simulate.helpInformation();
    const flags = [
      "--out",
      "--post",
      "--rate",
      "--follow",
      "--truth",
      "--seed",
      "--blocks",
      "--events-per-block",
      "--accounts",
      "--network",
      "--fork-rate",
      "--mix",
      "--start-height",
      "--start-burn-height",
      "--abort-rate",
      "--tenure-rate",
      "--sign",
      "--genesis-stx",
      "--hot-share",
      "--quiet",
    ];
    for (const flag of flags) expect(help).toContain(flag);
    for (const option of simulate.options) expect(option.description.length, option.long).toBeGreaterThan(20);
    expect(help).toContain("stx_transfer");
  });

  const bad: [string, string[], RegExp][] = [
    ["zero blocks", ["--out", "x.tsv", "--blocks", "0"], /--blocks/],
    ["non-numeric blocks", ["--out", "x.tsv", "--blocks", "ten"], /integer/],
    ["fork rate above 1", ["--out", "x.tsv", "--fork-rate", "2"], /between 0 and 1/],
    ["unknown mix key", ["--out", "x.tsv", "--mix", "stx_tranfer=1"], /unknown mix key/],
    ["negative weight", ["--out", "x.tsv", "--mix", "stx_transfer=-1"], /weight/],
    ["bad rate", ["--post", "http://127.0.0.1:1", "--rate", "fast"], /1\/s/],
    ["unknown network", ["--out", "x.tsv", "--network", "regtest"], /mainnet, testnet, devnet/],
    ["bad observer url", ["--post", "observer"], /http/],
    ["no destination", [], /exactly one of --out/],
    ["both destinations", ["--out", "x.tsv", "--post", "http://127.0.0.1:1"], /exactly one of --out/],
    ["follow without post", ["--out", "x.tsv", "--follow"], /--follow needs --post/],
    ["bad sign mode", ["--out", "x.tsv", "--sign", "none"], /template or full/],
    ["genesis below the minimum", ["--out", "x.tsv", "--genesis-stx", "9"], /integer ≥ 10/],
    ["hot share above 1", ["--out", "x.tsv", "--hot-share", "1.5"], /between 0 and 1/],
  ];
  for (const [name, args, message] of bad) {
    it(`exits with code 2 on ${name}`, async () => {
      const { error, errors } = await run(args);
      expect(error?.exitCode).toBe(2);
      expect(errors.join("")).toMatch(message);
    });
  }

  it("writes the TSV and its truth with --out", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sluice-cli-"));
    dirs.push(dir);
    const file = join(dir, "out.tsv");
    const { error } = await run([
      "--out",
      file,
      "--blocks",
      "6",
      "--events-per-block",
      "5",
      "--seed",
      "cli",
      "--mix",
      "bns=4,deploy=0",
      "--genesis-stx",
      "500",
      "--hot-share",
      "0.4",
      "--quiet",
    ]);
    expect(error).toBeNull();
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    const truth = JSON.parse(await readFile(`${file}.truth.json`, "utf8"));
    expect(truth.payloadCount).toBe(lines.length);
    expect(truth.canonical).toHaveLength(6);
    expect(truth.options.mix.bns).toBe(4);
    expect(truth.options).toMatchObject({ genesisStx: 500, hotShare: 0.4 });
    expect(Object.keys(truth.balances).some((key) => key.endsWith(".sim-pool-sbtc-stx"))).toBe(true);
  });

  it("simulates testnet: BNS-V2 and sBTC prints come from the testnet contract ids", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sluice-cli-"));
    dirs.push(dir);
    const file = join(dir, "testnet.tsv");
    const args = ["--out", file, "--network", "testnet", "--blocks", "8", "--events-per-block", "6", "--seed", "t"];
    const { error } = await run([...args, "--mix", "bns=3,sbtc=3,deploy=0", "--quiet"]);
    expect(error).toBeNull();
    const printers = new Set<string>();
    for (const line of (await readFile(file, "utf8")).trimEnd().split("\n")) {
      const [, , path, body] = line.split("\t");
      if (path !== "/new_block") continue;
      for (const event of JSON.parse(body).events as { contract_event?: { contract_identifier: string } }[])
        if (event.contract_event) printers.add(event.contract_event.contract_identifier);
    }
    const { bnsContractId, sbtcRegistryContractId } = NETWORK_CONTRACTS.testnet;
    expect([...printers]).toEqual(expect.arrayContaining([bnsContractId, sbtcRegistryContractId]));
  });
});
