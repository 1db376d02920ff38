/**
 * `sluice archive buy | balance | auto-refill | credits grant`: the credit commands, registered on
 * the `archive` command group (registerArchiveCreditCommands), talking to the archive server at
 * `--archive URL` or ARCHIVE_URL.
 */
import path from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import {
  CreditsRequestError,
  fetchBalance,
  loadCreditKey,
  openCheckout,
  postGrant,
  putAutoRefill,
  saveCreditKey,
} from "./client.js";
import { formatDollars, PACK_DOLLARS, parseDollars, parsePack } from "./money.js";
import type { BalanceView } from "./service.js";

const packArg = (v: string) => {
  if (parsePack(v) === null) throw new InvalidArgumentError(`must be one of ${PACK_DOLLARS.join(", ")} (dollars)`);
  return Number(v.replace(/^\$/, ""));
};
const dollarsArg = (v: string) => {
  const cents = parseDollars(v);
  if (cents === null || cents <= 0)
    throw new InvalidArgumentError("must be a dollar amount above zero, like 5 or 12.50");
  return v.replace(/^\$/, "");
};
const emailArg = (v: string) => {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) throw new InvalidArgumentError("must be an e-mail address");
  return v;
};

const ENV_NOTE =
  "\nThe archive is --archive URL or ARCHIVE_URL. The credit key is ARCHIVE_CREDIT_KEY, else DATA_DIR/archive-credit-key.";

/** The `archive` command group: the one already registered, or a new one. */
export function archiveCommandOf(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === "archive") ??
    program.command("archive").description("the signed public archive: restore history from it, and its credits")
  );
}

export function registerArchiveCreditCommands(archive: Command): void {
  const archiveOption = () => new Option("--archive <url>", "archive server URL (default $ARCHIVE_URL)");

  archive
    .command("buy")
    .description("buy a credit pack by card: prints a one-time checkout URL; the balance grows once the payment clears")
    .requiredOption("--pack <dollars>", `pack: ${PACK_DOLLARS.join(", ")}`, packArg)
    .requiredOption("--email <address>", "e-mail address for the receipt", emailArg)
    .addOption(archiveOption())
    .addHelpText(
      "after",
      `${ENV_NOTE}\nWithout a credit key, the archive makes one: it is printed once and saved to DATA_DIR/archive-credit-key.`,
    )
    .action(async (opts: { pack: number; email: string; archive?: string }) => {
      const url = archiveUrl(opts.archive);
      const dataDir = dataDirOf();
      const creditKey = loadCreditKey(process.env, dataDir);
      const result = await explain(openCheckout(url, { pack: opts.pack, email: opts.email, creditKey }));
      const lines = [`pay the $${opts.pack} pack here (one-time link):`, `  ${result.checkout_url}`];
      if (result.credit_key) {
        const saved = saveCreditKey(dataDir, result.credit_key);
        lines.push(
          "",
          `your new credit key (${result.key_id}); it is shown this once:`,
          `  ${result.credit_key}`,
          saved
            ? `saved to ${saved}; elsewhere set ARCHIVE_CREDIT_KEY to it`
            : `a key is already saved in ${path.join(dataDir, "archive-credit-key")}: set ARCHIVE_CREDIT_KEY to use this one`,
        );
      }
      process.stdout.write(`${lines.join("\n")}\n`);
    });

  archive
    .command("balance")
    .description("the credit balance, this month's free repairs and the auto-refill setting")
    .addOption(archiveOption())
    .addHelpText("after", ENV_NOTE)
    .action(async (opts: { archive?: string }) => {
      const view = await explain(fetchBalance(archiveUrl(opts.archive), requireKey()));
      process.stdout.write(`${formatBalance(view)}\n`);
    });

  archive
    .command("auto-refill")
    .description("buy a pack with the saved card whenever a charge takes the balance below a threshold (off until set)")
    .option("--threshold <dollars>", "refill when the balance falls below this", dollarsArg)
    .option("--pack <dollars>", `pack to buy: ${PACK_DOLLARS.join(", ")}`, packArg)
    .option("--off", "turn auto-refill off")
    .addOption(archiveOption())
    .addHelpText("after", `${ENV_NOTE}\nThe card is the one of an earlier \`sluice archive buy\`.`)
    .action(async (opts: { threshold?: string; pack?: number; off?: boolean; archive?: string }) => {
      if (opts.off && (opts.threshold !== undefined || opts.pack !== undefined))
        throw new InvalidArgumentError("--off takes no --threshold or --pack");
      if (!opts.off && (opts.threshold === undefined || opts.pack === undefined))
        throw new Error("give --threshold DOLLARS and --pack DOLLARS, or --off");
      const setting = opts.off ? null : { threshold: opts.threshold as string, pack: opts.pack as number };
      const view = await explain(putAutoRefill(archiveUrl(opts.archive), requireKey(), setting));
      process.stdout.write(`${formatBalance(view)}\n`);
    });

  const credits = archive.command("credits").description("operator commands of an archive server's credit ledger");
  credits
    .command("grant")
    .description("operator: add credit to a key (--key-id), or to a new key whose secret is printed once")
    .requiredOption("--amount <dollars>", "dollars to grant", dollarsArg)
    .option("--key-id <id>", "the key to credit (ck_…); default a new key")
    .option("--note <text>", "why (kept on the ledger entry)")
    .option("--idempotency-key <text>", "grant at most once under this key")
    .addOption(archiveOption())
    .addHelpText("after", "\nThe operator token is ARCHIVE_OPERATOR_TOKEN (the archive server's own).")
    .action(
      async (opts: { amount: string; keyId?: string; note?: string; idempotencyKey?: string; archive?: string }) => {
        const token = process.env.ARCHIVE_OPERATOR_TOKEN?.trim();
        if (!token) throw new Error("set ARCHIVE_OPERATOR_TOKEN to the archive server's operator token");
        const result = await explain(
          postGrant(archiveUrl(opts.archive), token, {
            amount: opts.amount,
            ...(opts.keyId ? { key_id: opts.keyId } : {}),
            ...(opts.note ? { note: opts.note } : {}),
            ...(opts.idempotencyKey ? { idempotency_key: opts.idempotencyKey } : {}),
          }),
        );
        const lines = [
          result.duplicate
            ? `already granted under that idempotency key; ${result.key_id} balance ${formatDollars(result.balance_cents)}`
            : `granted $${opts.amount} to ${result.key_id}; balance ${formatDollars(result.balance_cents)}`,
        ];
        if (result.credit_key)
          lines.push(
            `new credit key (shown this once; give it to its user as ARCHIVE_CREDIT_KEY):`,
            `  ${result.credit_key}`,
          );
        process.stdout.write(`${lines.join("\n")}\n`);
      },
    );
}

/** The lines `balance` and `auto-refill` print. */
export function formatBalance(view: BalanceView): string {
  const refill = view.auto_refill;
  const last = refill?.last_refill;
  return [
    `balance ${view.balance} (credit key ${view.key_id})`,
    `free repair bundles left this month: ${view.free_repairs_left} (resets ${view.free_repairs_reset_at.slice(0, 10)})`,
    refill
      ? `auto-refill: below ${formatDollars(refill.threshold_cents)}, buy the ${formatDollars(refill.pack_cents)} pack${
          last ? `; last refill ${last.status}${last.error ? `: ${last.error}` : ""}` : ""
        }`
      : "auto-refill: off",
  ].join("\n");
}

function archiveUrl(flag: string | undefined): string {
  const url = flag ?? process.env.ARCHIVE_URL;
  if (!url) throw new Error("no archive: pass --archive URL or set ARCHIVE_URL");
  if (!/^https?:\/\//.test(url)) throw new Error(`--archive must be an http(s) URL, not ${url}`);
  return url;
}

function dataDirOf(): string {
  return path.resolve(process.env.DATA_DIR ?? "./data");
}

function requireKey(): string {
  const key = loadCreditKey(process.env, dataDirOf());
  if (!key)
    throw new Error(
      "no credit key: set ARCHIVE_CREDIT_KEY, or buy credits first (sluice archive buy --pack 25 --email you@example.com)",
    );
  return key;
}

/** Server refusals become one readable line (with the server's code) for the CLI's error path. */
async function explain<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof CreditsRequestError) throw new Error(`${err.message} (${err.code})`);
    throw err;
  }
}
