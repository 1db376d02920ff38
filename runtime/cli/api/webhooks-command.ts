/**
 * `sluice webhooks create|list|get|update|delete|pause|resume|test|deliveries|dead-letters|
 * requeue|replay|rotate-secret` (README "CLI") through the SDK. `<webhook>` is an id or a name;
 * the receiver URL is `--target` (`--url` is the service's address, as on every API command).
 */
import type { Command } from "commander";
import type { Schemas } from "../../sdk/client.js";
import { type ApiOptions, clientOf, output, parseJsonOption, run, UsageError, withApiOptions } from "./common.js";

const WEBHOOK_COLUMNS = ["id", "name", "kind", "status", "format", "url", "target"];

function webhookRow(w: Schemas["Webhook"]): Record<string, unknown> {
  return {
    ...w,
    target:
      w.kind === "chain"
        ? (w.triggers ?? []).map((t) => t.type).join(",")
        : `${w.subgraphName ?? "?"}/${w.tableName ?? "?"}`,
  };
}

interface BodyOptions {
  name?: string;
  url?: string;
  format?: string;
  trigger: string[];
  triggers?: string;
  subgraph?: string;
  table?: string;
  filter?: string;
  timeoutMs?: string;
  maxAttempts?: string;
  concurrency?: string;
  ordered?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function integer(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be an integer`);
  return Number(v);
}

/** The create/update body from the options: `--trigger TYPE` (repeatable) or `--triggers JSON`. */
function bodyOf(o: BodyOptions): Record<string, unknown> {
  let triggers = parseJsonOption("triggers", o.triggers) as unknown[] | undefined;
  if (o.trigger.length) triggers = [...(triggers ?? []), ...o.trigger.map((type) => ({ type }))];
  const body: Record<string, unknown> = {
    name: o.name,
    url: o.url,
    format: o.format,
    triggers,
    subgraphName: o.subgraph,
    tableName: o.table,
    filter: parseJsonOption("filter", o.filter),
    timeoutMs: integer("timeout-ms", o.timeoutMs),
    maxAttempts: integer("max-attempts", o.maxAttempts),
    concurrency: integer("concurrency", o.concurrency),
    ordered: o.ordered,
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

function bodyOptions(command: Command, create: boolean): Command {
  if (!create) command.option("--name <name>", "new name");
  return withApiOptions(
    command
      .option("--target <url>", "receiver URL (required to create)")
      .option("--format <format>", "standard-webhooks (default), raw, cloudevents, inngest, trigger, cloudflare")
      .option("--trigger <type>", "chain trigger type without filters (repeatable)", collect, [])
      .option("--triggers <json>", "chain triggers as a JSON array of trigger objects")
      .option("--filter <json>", "row filter of a subgraph webhook (JSON object)")
      .option("--timeout-ms <n>", "per-attempt timeout")
      .option("--max-attempts <n>", "attempts before a delivery is dead")
      .option("--concurrency <n>", "deliveries in flight at once")
      .option("--ordered", "deliver one at a time, in order"),
  );
}

export function registerWebhooksCommands(program: Command): void {
  const webhooks = program.command("webhooks").description("manage the instance's webhooks (needs the instance token)");

  const create = webhooks
    .command("create <name>")
    .description("create a webhook: --trigger/--triggers (chain) or --subgraph and --table; prints the secret once")
    .option("--subgraph <name>", "subgraph of a subgraph webhook")
    .option("--table <table>", "table of a subgraph webhook");
  bodyOptions(create, true).action((name: string, o: ApiOptions & BodyOptions & { target?: string }) =>
    run(async () => {
      const body = { ...bodyOf({ ...o, url: o.target }), name } as Schemas["WebhookCreate"];
      const created = await clientOf(o).webhooks.create(body);
      output(o, created);
    }),
  );

  withApiOptions(
    webhooks.command("list").description("every webhook").option("--kind <kind>", "chain or subgraph"),
  ).action((o: ApiOptions & { kind?: "chain" | "subgraph" }) =>
    run(async () => {
      const { webhooks: list } = await clientOf(o).webhooks.list(o.kind ? { kind: o.kind } : {});
      output(o, list, { columns: WEBHOOK_COLUMNS, rows: list.map(webhookRow) });
    }),
  );

  withApiOptions(webhooks.command("get <webhook>").description("a webhook and its backlog")).action(
    (webhook: string, o: ApiOptions) => run(async () => output(o, await clientOf(o).webhooks.get(webhook))),
  );

  const update = webhooks.command("update <webhook>").description("change a webhook's fields");
  bodyOptions(update, false).action((webhook: string, o: ApiOptions & BodyOptions & { target?: string }) =>
    run(async () => {
      const body = bodyOf({ ...o, url: o.target }) as Schemas["WebhookUpdate"];
      output(o, await clientOf(o).webhooks.update(webhook, body));
    }),
  );

  withApiOptions(webhooks.command("delete <webhook>").description("delete a webhook, its outbox and log")).action(
    (webhook: string, o: ApiOptions) =>
      run(async () => {
        await clientOf(o).webhooks.delete(webhook);
        if (o.json) output(o, { deleted: webhook });
        else process.stdout.write(`deleted ${webhook}\n`);
      }),
  );

  for (const [verb, what] of [
    ["pause", "hold deliveries (events are still recorded)"],
    ["resume", "deliver again"],
  ] as const) {
    withApiOptions(webhooks.command(`${verb} <webhook>`).description(what)).action((webhook: string, o: ApiOptions) =>
      run(async () => {
        const w = await clientOf(o).webhooks[verb](webhook);
        output(o, w, { columns: WEBHOOK_COLUMNS, rows: [webhookRow(w)] });
      }),
    );
  }

  withApiOptions(
    webhooks
      .command("test <webhook>")
      .description("send a chain.test.apply delivery now; exit 1 when the receiver did not accept it")
      .option("--message <text>", "message carried in the delivery"),
  ).action((webhook: string, o: ApiOptions & { message?: string }) =>
    run(async () => {
      const result = await clientOf(o).webhooks.test(webhook, o.message ? { message: o.message } : {});
      output(o, result);
      if (!result.success) process.exitCode = 1;
    }),
  );

  withApiOptions(
    webhooks
      .command("deliveries <webhook>")
      .description("delivery attempts, newest first")
      .option("--limit <n>", "attempts per page (1-1000)")
      .option("--cursor <cursor>", "the previous nextCursor")
      .option("--delivery <id>", "attempts of one delivery"),
  ).action((webhook: string, o: ApiOptions & { limit?: string; cursor?: string; delivery?: string }) =>
    run(async () => {
      const page = await clientOf(o).webhooks.deliveries(webhook, {
        limit: integer("limit", o.limit),
        cursor: o.cursor,
        deliveryId: o.delivery,
      });
      output(o, page, {
        columns: ["attemptedAt", "deliveryId", "type", "attempt", "success", "responseStatus", "latencyMs", "error"],
        rows: page.deliveries,
      });
    }),
  );

  withApiOptions(
    webhooks
      .command("dead-letters <webhook>")
      .description("deliveries that exhausted their attempts")
      .option("--limit <n>", "per page (1-1000)")
      .option("--cursor <cursor>", "the previous nextCursor"),
  ).action((webhook: string, o: ApiOptions & { limit?: string; cursor?: string }) =>
    run(async () => {
      const page = await clientOf(o).webhooks.deadLetters(webhook, {
        limit: integer("limit", o.limit),
        cursor: o.cursor,
      });
      output(o, page, {
        columns: ["diedAt", "deliveryId", "type", "attempts", "lastStatus", "lastError"],
        rows: page.deadLetters,
      });
    }),
  );

  withApiOptions(
    webhooks
      .command("requeue <webhook> [delivery]")
      .description("requeue one dead delivery, or every dead delivery of the webhook"),
  ).action((webhook: string, delivery: string | undefined, o: ApiOptions) =>
    run(async () => output(o, await clientOf(o).webhooks.requeue(webhook, delivery))),
  );

  withApiOptions(
    webhooks
      .command("replay <webhook>")
      .description("replay a block range (historical deliveries flagged is_replay)")
      .requiredOption("--from <height>", "first block")
      .requiredOption("--to <height>", "last block"),
  ).action((webhook: string, o: ApiOptions & { from: string; to: string }) =>
    run(async () => {
      const fromBlock = integer("from", o.from) as number;
      const toBlock = integer("to", o.to) as number;
      output(o, await clientOf(o).webhooks.replay(webhook, { fromBlock, toBlock }));
    }),
  );

  withApiOptions(
    webhooks
      .command("rotate-secret <webhook>")
      .description("issue a new signing secret (printed once); the old one signs until the grace period ends")
      .option("--grace-seconds <n>", "grace period of the old secret (default one day)"),
  ).action((webhook: string, o: ApiOptions & { graceSeconds?: string }) =>
    run(async () => {
      const grace = integer("grace-seconds", o.graceSeconds);
      output(
        o,
        await clientOf(o).webhooks.rotateSecret(webhook, grace === undefined ? {} : { gracePeriodSeconds: grace }),
      );
    }),
  );
}
