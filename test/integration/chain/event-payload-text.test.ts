/**
 * runtime/chain/event-columns-sql.ts eventPayloadTextSql prints, as text, the same JSON value as
 * `chain.event_payload(...)` (migration 16) for every shape a chain.events row can take: compact
 * rows of every type, null columns (left out, as jsonb_strip_nulls does), an empty stored payload,
 * strings that need JSON escaping, non-ASCII text, and stored payloads that still hold a key the
 * columns rebuild (stored before compaction, or an amount kept as sent: the stored key wins). The
 * expected values are written out by hand from the rows below. Both drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventPayloadTextSql } from "../../../runtime/chain/event-columns-sql.js";
import { type TestDb, TEST_DB_KIND, createTestDb } from "../../support/db.js";

const Q = 'SP"quoted\\back\nline';

/** [event_type, contract_id, asset_identifier, sender, recipient, amount, topic, raw_value hex, stored payload, expected] */
const ROWS: [
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string,
  unknown,
][] = [
  [
    "stx_transfer",
    null,
    "STX",
    "SPA",
    "SPB",
    "1000",
    null,
    null,
    '{"memo": "6869"}',
    { sender: "SPA", recipient: "SPB", amount: "1000", memo: "6869" },
  ],
  ["stx_mint", null, "STX", null, "SPB", "5", null, null, "{}", { recipient: "SPB", amount: "5" }],
  [
    "stx_lock",
    null,
    "STX",
    "SPA",
    null,
    "4953",
    null,
    null,
    '{"unlock_height": "570"}',
    { locked_address: "SPA", locked_amount: "4953", unlock_height: "570" },
  ],
  [
    "ft_transfer",
    "SPC.t",
    "SPC.t::t",
    Q,
    "SPé",
    "340282366920938463463374607431768211455",
    null,
    null,
    "{}",
    { asset_identifier: "SPC.t::t", sender: Q, recipient: "SPé", amount: "340282366920938463463374607431768211455" },
  ],
  [
    "nft_mint",
    "SPC.n",
    "SPC.n::n",
    null,
    "SPB",
    null,
    null,
    "0100",
    '{"value": {"type": "uint", "value": "1"}}',
    { asset_identifier: "SPC.n::n", recipient: "SPB", raw_value: "0x0100", value: { type: "uint", value: "1" } },
  ],
  [
    "print",
    "SPC.p",
    null,
    null,
    null,
    null,
    "print",
    "0c00",
    '{"value": {"a\\"b": [1, null, "<&>"]}}',
    { contract_id: "SPC.p", topic: "print", raw_value: "0x0c00", value: { 'a"b': [1, null, "<&>"] } },
  ],
  ["print", "SPC.p", null, null, null, null, null, null, "{}", { contract_id: "SPC.p" }],
  // Stored before compaction: every key in the stored payload, which wins.
  [
    "ft_mint",
    "SPC.t",
    "SPC.t::t",
    null,
    "SPB",
    "7",
    null,
    null,
    '{"amount": "0007", "recipient": "SPB", "asset_identifier": "SPC.t::t"}',
    { asset_identifier: "SPC.t::t", recipient: "SPB", amount: "0007" },
  ],
  [
    "nft_burn",
    "SPC.n",
    "SPC.n::n",
    "SPA",
    null,
    null,
    null,
    null,
    '{"raw_value": "0x01A2", "value": null}',
    { asset_identifier: "SPC.n::n", sender: "SPA", raw_value: "0x01A2", value: null },
  ],
];

describe(`event payload as text on ${TEST_DB_KIND}`, () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("is the same JSON value as chain.event_payload for every row shape", async () => {
    const values = ROWS.map(
      (_, i) =>
        `($${i * 9 + 1}::text, $${i * 9 + 2}::text, $${i * 9 + 3}::text, $${i * 9 + 4}::text, $${i * 9 + 5}::text, $${i * 9 + 6}::numeric, $${i * 9 + 7}::text, decode($${i * 9 + 8}::text, 'hex'), $${i * 9 + 9}::jsonb, ${i})`,
    );
    const params = ROWS.flatMap((r) => r.slice(0, 9));
    const { rows } = await t.db.query<{ n: number; text: string; reference: unknown }>(
      `SELECT r.n, ${eventPayloadTextSql("r")} AS text,
              chain.event_payload(r.event_type, r.contract_id, r.asset_identifier, r.sender, r.recipient, r.amount, r.topic, r.raw_value, r.payload) AS reference
         FROM (VALUES ${values.join(", ")}) r(event_type, contract_id, asset_identifier, sender, recipient, amount, topic, raw_value, payload, n)
        ORDER BY r.n`,
      params,
    );
    expect(rows.map((r) => JSON.parse(r.text))).toEqual(ROWS.map((r) => r[9]));
    expect(rows.map((r) => r.reference)).toEqual(ROWS.map((r) => r[9]));
  });
});
