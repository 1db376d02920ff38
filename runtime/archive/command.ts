/**
 * `sluice archive …`: publish, serve, and the instance commands bootstrap, backfill, repair and
 * verify. The instance commands use DATABASE_URL / DATA_DIR like the service, and the archive at
 * `--archive URL` or ARCHIVE_URL.
 */
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { type Command, Option } from "commander";
import { parseConfig } from "../config/index.js";
import { migrate, openDb } from "../db/index.js";
import { createLogger } from "../internal/logger.js";
import { createProgress, progressBar } from "../cli/progress.js";
import { openArchive } from "./client.js";
import { loadCreditKey } from "./credits/client.js";
import { openCreditsDb, parseCreditsConfig, providerFromConfig } from "./credits/config.js";
import { createCreditsApp } from "./credits/routes.js";
import { createCreditsService } from "./credits/service.js";
import { loadArchiveKey } from "./keys.js";
import { DEFAULT_PARTITION_SPAN, publishArchive } from "./publish.js";
import { DEFAULT_URL_TTL_SECONDS } from "./presign.js";
import { type RestorePlan, type RestoreSummary, describePlan, restoreFromArchive } from "./restore.js";
import { wholeNumber } from "../internal/cli-options.js";
import { startArchiveServer } from "./server.js";
import { filesystemStorage } from "./storage.js";
import { checkPartition, formatChecks } from "./verify.js";
import type { RestoreOperation } from "./restore-store.js";

const ENV_NOTE = "\nUses DATABASE_URL (PostgreSQL) or DATA_DIR (embedded database), like the service.";

export function registerArchiveCommands(program: Command): void {
  const archive = program
    .command("archive")
    .description("signed partition bundles of finalized history: publish, serve, and restore an instance from them");

  archive
    .command("publish")
    .description(
      "export finalized canonical history as signed partition bundles into DIR; a re-run adds only new partitions",
    )
    .requiredOption("--out <dir>", "archive directory (created when missing)")
    .option(
      "--span <heights>",
      `heights per partition (fixed for an archive); default ${DEFAULT_PARTITION_SPAN}`,
      wholeNumber(1, 10_000_000),
      DEFAULT_PARTITION_SPAN,
    )
    .option(
      "--key <file>",
      "archive signing key (ed25519 seed JSON; created when missing); default $ARCHIVE_KEY_FILE or DATA_DIR/archive-signing-key.json",
    )
    .option("--previous-key <file>", "the key that signed the archive so far, to rotate to --key")
    .option("--quiet", "no progress line")
    .addHelpText("after", ENV_NOTE)
    .action(async (opts: { out: string; span: number; key?: string; previousKey?: string; quiet?: boolean }) => {
      const config = parseConfig();
      const keyFile = opts.key ?? process.env.ARCHIVE_KEY_FILE ?? path.join(config.dataDir, "archive-signing-key.json");
      const key = loadArchiveKey(keyFile, true);
      const previousKey = opts.previousKey ? loadArchiveKey(opts.previousKey, false) : undefined;
      const db = await openDb({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
        pgliteTemplate: config.pgliteTemplate,
      });
      try {
        await migrate(db);
        const progress = opts.quiet ? undefined : createProgress();
        const started = performance.now();
        const summary = await publishArchive({
          db,
          storage: filesystemStorage(path.resolve(opts.out)),
          key,
          previousKey,
          network: config.network,
          span: opts.span,
          onPartition: ({ entry, done, total, events, bytes }) => {
            const s = (performance.now() - started) / 1000;
            const eta = (s / done) * (total - done);
            progress?.update(
              `publish ${progressBar(done / Math.max(total, 1))} ${done}/${total} | heights ${entry.first_height}-${entry.last_height} | events ${events} (${Math.round(events / Math.max(s, 1e-3))}/s) | ${(bytes / 1048576).toFixed(1)} MB | ETA ${Math.round(eta)}s`,
            );
          },
        });
        process.stdout.write(
          `${
            summary.unchanged
              ? `archive ${opts.out} is up to date: ${summary.partitions} partitions (manifest ${summary.sequence}); finalized height ${summary.finalizedHeight ?? "none"}`
              : [
                  `published ${summary.added.length} new partition${summary.added.length === 1 ? "" : "s"} to ${opts.out} in ${summary.seconds.toFixed(1)}s (manifest ${summary.sequence}, ${summary.partitions} partitions, key ${key.keyId})`,
                  `  events ${summary.events} (${Math.round(summary.events / Math.max(summary.seconds, 1e-3))}/s), ${summary.bytes} bytes`,
                  `  finalized height ${summary.finalizedHeight ?? "none"}: later heights wait for finality`,
                ].join("\n")
          }\n`,
        );
      } finally {
        await db.close();
      }
    });

  archive
    .command("serve")
    .description(
      "serve an archive directory: manifest and keys, bundles through presigned URLs (HMAC, short-lived), Range requests",
    )
    .requiredOption("--dir <dir>", "archive directory written by `sluice archive publish`")
    .option("--host <host>", "listen address", "127.0.0.1")
    .option("--port <port>", "listen port (0: any free port)", wholeNumber(0, 65535), 3900)
    .option(
      "--url-ttl <seconds>",
      `lifetime of a presigned URL; default ${DEFAULT_URL_TTL_SECONDS}`,
      wholeNumber(1, 86_400),
      DEFAULT_URL_TTL_SECONDS,
    )
    .addHelpText(
      "after",
      [
        "",
        "ARCHIVE_URL_SECRET (base64, 32 bytes) keeps presigned URLs valid across restarts and processes; unset: random per process.",
        "Credits: each bundle is charged (manifest price units × ARCHIVE_UNIT_PRICE_CENTS, default 10) to the credit key",
        "of the instance asking, in a ledger in ARCHIVE_CREDITS_DIR (default DATA_DIR/credits) or ARCHIVE_CREDITS_DATABASE_URL;",
        "ARCHIVE_OPERATOR_TOKEN enables grants and refunds; STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and",
        "ARCHIVE_CHECKOUT_RETURN_URL enable card checkout. ARCHIVE_FREE=true (or ARCHIVE_UNIT_PRICE_CENTS=0) serves a free",
        "archive: no ledger, no credit key needed, nothing charged.",
      ].join("\n"),
    )
    .action(async (opts: { dir: string; host: string; port: number; urlTtl: number }) => {
      const dir = path.resolve(opts.dir);
      if ((await filesystemStorage(dir).size("latest.json")) === null)
        throw new Error(
          `no archive in ${dir} (latest.json is missing): run \`sluice archive publish --out ${opts.dir}\` first`,
        );
      const raw = process.env.ARCHIVE_URL_SECRET;
      const secret = raw ? Buffer.from(raw, "base64") : undefined;
      if (secret && secret.length !== 32) throw new Error("ARCHIVE_URL_SECRET must be the base64 encoding of 32 bytes");
      const free = parseFreeFlag(process.env.ARCHIVE_FREE);
      const config = parseConfig();
      const logger = createLogger({ level: config.logLevel, format: config.logFormat });
      const creditsConfig = free ? null : parseCreditsConfig(process.env, config.dataDir);
      const charging = creditsConfig !== null && creditsConfig.unitPriceCents > 0;
      const creditsDb = charging ? await openCreditsDb(creditsConfig) : null;
      const service =
        creditsDb && creditsConfig
          ? createCreditsService({ db: creditsDb, provider: providerFromConfig(creditsConfig), logger })
          : null;
      try {
        const server = await startArchiveServer({
          storage: filesystemStorage(dir),
          host: opts.host,
          port: opts.port,
          urlSecret: secret,
          urlTtlSeconds: opts.urlTtl,
          credits:
            service && creditsConfig
              ? {
                  service,
                  unitPriceCents: creditsConfig.unitPriceCents,
                  app: createCreditsApp({ service, operatorToken: creditsConfig.operatorToken, logger }),
                }
              : undefined,
        });
        process.stdout.write(
          `archive ${opts.dir} served at ${server.url} (presigned URLs live ${opts.urlTtl}s; ${
            service && creditsConfig
              ? `bundles charged at ${creditsConfig.unitPriceCents} cents per price unit`
              : "free: nothing charged"
          })\n`,
        );
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        });
        await server.close();
      } finally {
        // Auto-refills started by charges finish before the ledger closes.
        await service?.settled();
        await creditsDb?.close();
      }
    });

  const archiveOption = () => new Option("--archive <url>", "archive server URL (default $ARCHIVE_URL)");
  const keyOption = () =>
    new Option(
      "--public-key <base64>",
      "trusted archive public key (repeatable; default $ARCHIVE_PUBLIC_KEYS, comma-separated)",
    ).argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);

  const restoreCommand = (name: RestoreOperation, description: string) => {
    const cmd = archive
      .command(name)
      .description(description)
      .addOption(archiveOption())
      .addOption(keyOption())
      .option("--yes", "do not ask for confirmation (scripts)")
      .option("--quiet", "no progress lines");
    if (name === "backfill") {
      cmd.requiredOption("--from <height>", "first height", wholeNumber(0, 2 ** 31 - 1));
      cmd.requiredOption("--to <height>", "last height", wholeNumber(0, 2 ** 31 - 1));
    }
    cmd.addHelpText("after", ENV_NOTE).action(async (opts: RestoreFlags) => runRestore(name, opts));
  };
  restoreCommand(
    "bootstrap",
    "restore every published partition into an instance whose chain is empty, then rebuild subgraphs",
  );
  restoreCommand("backfill", "restore the partitions of a height range the instance lacks or holds differently");
  restoreCommand("repair", "re-fetch the partitions whose local rows no longer match the manifest digest");

  archive
    .command("verify")
    .description("read-only and free: recompute each local partition's digest and print ok / differs / missing")
    .addOption(archiveOption())
    .addOption(keyOption())
    .addHelpText("after", `${ENV_NOTE}\nExit status 1 when a partition differs.`)
    .action(async (opts: RestoreFlags) => {
      const config = parseConfig();
      const opened = await openArchive(archiveUrl(opts), pinnedKeys(opts));
      warnUnpinned(opened.unpinned);
      const db = await openDb({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
        pgliteTemplate: config.pgliteTemplate,
      });
      try {
        await migrate(db);
        const checks = [];
        for (const p of opened.manifest.partitions) checks.push(await checkPartition(db, p));
        process.stdout.write(`${formatChecks(checks)}\n`);
        if (checks.some((c) => c.status === "differs")) process.exitCode = 1;
      } finally {
        await db.close();
      }
    });
}

/** ARCHIVE_FREE: true/1/yes serves a free archive; unset/false/0/no charges. */
export function parseFreeFlag(raw: string | undefined): boolean {
  const v = (raw ?? "").trim().toLowerCase();
  if (v === "" || v === "false" || v === "0" || v === "no") return false;
  if (v === "true" || v === "1" || v === "yes") return true;
  throw new Error(`ARCHIVE_FREE must be true or false, not ${raw}`);
}

interface RestoreFlags {
  archive?: string;
  publicKey?: string[];
  yes?: boolean;
  quiet?: boolean;
  from?: number;
  to?: number;
}

function archiveUrl(opts: RestoreFlags): string {
  const url = opts.archive ?? process.env.ARCHIVE_URL;
  if (!url) throw new Error("no archive: pass --archive URL or set ARCHIVE_URL");
  if (!/^https?:\/\//.test(url)) throw new Error(`--archive must be an http(s) URL, not ${url}`);
  return url;
}

function pinnedKeys(opts: RestoreFlags): string[] {
  return (
    opts.publicKey ??
    (process.env.ARCHIVE_PUBLIC_KEYS ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
  );
}

function warnUnpinned(unpinned: boolean): void {
  if (unpinned)
    process.stderr.write(
      "warning: no archive public key pinned (--public-key or ARCHIVE_PUBLIC_KEYS); trusting the archive's first listed key\n",
    );
}

async function confirmPlan(plan: RestorePlan, yes: boolean | undefined): Promise<boolean> {
  process.stderr.write(`${describePlan(plan)}\n`);
  if (yes) return true;
  if (!process.stdin.isTTY) throw new Error("confirmation needed: run in a terminal or pass --yes");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question("Proceed? [y/N] ")).trim());
  } finally {
    rl.close();
  }
}

async function runRestore(operation: RestoreOperation, opts: RestoreFlags): Promise<void> {
  if (operation === "backfill" && (opts.from ?? 0) > (opts.to ?? 0)) throw new Error("--from must not be above --to");
  const config = parseConfig();
  const logger = createLogger({ level: config.logLevel === "info" ? "warn" : config.logLevel, format: "pretty" });
  const opened = await openArchive(archiveUrl(opts), pinnedKeys(opts));
  warnUnpinned(opened.unpinned);
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
    pgliteTemplate: config.pgliteTemplate,
    logger,
  });
  try {
    await migrate(db);
    const started = performance.now();
    const summary = await restoreFromArchive({
      db,
      config,
      logger,
      archive: opened,
      operation,
      from: opts.from,
      to: opts.to,
      downloadsDir: path.join(config.dataDir, "archive-downloads"),
      creditKey: loadCreditKey(process.env, config.dataDir),
      confirm: (plan) => confirmPlan(plan, opts.yes),
      progress: opts.quiet ? { update() {}, done() {} } : createProgress(),
    });
    process.stdout.write(`${describeSummary(operation, summary, (performance.now() - started) / 1000)}\n`);
    if (summary.cancelled) process.exitCode = 1;
  } finally {
    await db.close();
  }
}

export function describeSummary(operation: string, s: RestoreSummary, seconds: number): string {
  if (s.cancelled) return `${operation} cancelled; nothing was downloaded or written`;
  if (s.plan.partitions.length === 0)
    return operation === "bootstrap"
      ? "bootstrap: nothing to do (this instance was bootstrapped already; `sluice archive backfill` adds newer partitions)"
      : `${operation}: nothing to do (every partition concerned is ok)`;
  const rate = (n: number, t: number) => Math.round(n / Math.max(t, 1e-3));
  const restoreSeconds = s.loadSeconds + s.indexSeconds;
  return [
    `${operation} finished in ${seconds.toFixed(1)}s: ${s.plan.partitions.length} partitions, tip ${s.tipHeight ?? "none"}, finalized ${s.finalizedHeight ?? "none"}`,
    `  download ${s.downloadedBytes} bytes in ${s.downloadSeconds.toFixed(1)}s`,
    `  load ${s.rows} rows, ${s.events} events in ${s.loadSeconds.toFixed(1)}s; indexes ${s.indexSeconds.toFixed(1)}s → ${rate(s.events, restoreSeconds)} events/s`,
    `  subgraphs rebuilt in ${s.subgraphSeconds.toFixed(1)}s`,
  ].join("\n");
}
