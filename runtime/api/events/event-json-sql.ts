/**
 * The event object of the Index and Streams routes (events/README.md "Events") as JSON text,
 * printed by PostgreSQL from a chain.events row: compact, keys in the documented order, one text
 * per event that the API splices into the page unparsed. Pure: SQL text out.
 *
 * Printed with text concatenation rather than row_to_json over a row built per event: every string
 * column goes through to_json (JSON escaping), integers and numerics print as they are, nulls as
 * `null`, so the text is what row_to_json printed; the payload comes from
 * chain/event-columns-sql.ts eventPayloadTextSql.
 */
import { eventPayloadTextSql } from "../../chain/event-columns-sql.js";

/**
 * `alias` is a row with chain.events' columns; `finalizedHeight` is SQL for the finalized height
 * (null = nothing final yet).
 */
export function eventJsonSql(alias: string, finalizedHeight: string): string {
  const c = (name: string) => `${alias}.${name}`;
  const str = (expr: string) => `COALESCE(to_json(${expr})::text, 'null')`;
  return `concat('{"cursor":"', ${c("block_height")}, ':', ${c("event_index")},
    '","block_height":', ${c("block_height")},
    ',"event_index":', ${c("event_index")},
    ',"block_hash":', ${str(`(SELECT b.block_hash FROM chain.blocks b WHERE b.index_block_hash = ${c("index_block_hash")})`)},
    ',"index_block_hash":', ${str(c("index_block_hash"))},
    ',"tx_id":', ${str(c("tx_id"))},
    ',"tx_index":', COALESCE(${c("tx_index")}::text, 'null'),
    ',"event_type":', ${str(c("event_type"))},
    ',"contract_id":', ${str(c("contract_id"))},
    ',"asset_identifier":', ${str(c("asset_identifier"))},
    ',"sender":', ${str(c("sender"))},
    ',"recipient":', ${str(c("recipient"))},
    ',"amount":', COALESCE('"' || ${c("amount")}::text || '"', 'null'),
    ',"topic":', ${str(c("topic"))},
    ',"finalized":', CASE WHEN ${c("block_height")} <= ${finalizedHeight} THEN 'true' ELSE 'false' END,
    ',"payload":', ${eventPayloadTextSql(alias)},
    '}')`;
}
