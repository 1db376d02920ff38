/**
 * `sluice events tail` (README "CLI"): the Streams SSE route to stdout, one JSON object per line
 * (`{ id, event, data }`). Reconnects with backoff and resumes after the last frame; with
 * `--checkpoint <file>` it saves each frame id there and resumes from it on the next start.
 */
import type { Command } from "commander";
import { fileCheckpoint } from "../../sdk/checkpoint.js";
import { type ApiOptions, clientOf, run, withApiOptions } from "./common.js";

interface TailOptions extends ApiOptions {
  types?: string;
  notTypes?: string;
  contractId?: string;
  sender?: string;
  recipient?: string;
  assetIdentifier?: string;
  fromHeight?: string;
  cursor?: string;
  checkpoint?: string;
  limit?: string;
}

export function registerEventsCommands(program: Command): void {
  const events = program.command("events").description("chain events from the Streams API");
  withApiOptions(
    events
      .command("tail")
      .description("follow the event stream, printing NDJSON; Ctrl-C stops")
      .option("--types <list>", "comma-separated event types")
      .option("--not-types <list>", "comma-separated event types to leave out")
      .option("--contract-id <id>", "contract filter")
      .option("--sender <principal>", "sender filter")
      .option("--recipient <principal>", "recipient filter")
      .option("--asset-identifier <id>", "asset filter")
      .option("--from-height <n>", "start at this block height (else: live)")
      .option("--cursor <cursor>", "start after this cursor")
      .option("--checkpoint <file>", "save the last frame id here and resume from it")
      .option("--limit <n>", "stop after this many events"),
  ).action((o: TailOptions) =>
    run(async () => {
      const client = clientOf(o);
      const checkpoint = o.checkpoint ? fileCheckpoint(o.checkpoint) : undefined;
      const saved = await checkpoint?.load();
      const abort = new AbortController();
      process.once("SIGINT", () => abort.abort());
      process.once("SIGTERM", () => abort.abort());
      const max = o.limit === undefined ? Number.POSITIVE_INFINITY : Number(o.limit);
      let seen = 0;
      const frames = client.streams.stream(
        {
          types: o.types,
          not_types: o.notTypes,
          contract_id: o.contractId,
          sender: o.sender,
          recipient: o.recipient,
          asset_identifier: o.assetIdentifier,
          from_height: saved || o.cursor || o.fromHeight === undefined ? undefined : Number(o.fromHeight),
          cursor: saved ? undefined : o.cursor,
        },
        {
          lastEventId: saved,
          signal: abort.signal,
          onReconnect: ({ delayMs }) => process.stderr.write(`sluice: stream dropped; reconnecting in ${delayMs} ms\n`),
        },
      );
      for await (const frame of frames) {
        if (frame.event === "ping") continue;
        process.stdout.write(`${JSON.stringify(frame)}\n`);
        if (frame.id && checkpoint) await checkpoint.save(frame.id);
        if (frame.event !== "reorg") seen += 1;
        if (seen >= max) break;
      }
      abort.abort();
    }),
  );
}
