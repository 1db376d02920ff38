/**
 * A bundle's events rows as a restore stores them (runtime/archive/compact-event-rows.ts): COPY
 * text in, COPY text out with the compact payload and raw_value appended; rows cut anywhere across
 * chunks; escapes kept; a row that cannot be compacted exactly passes through whole. The inputs
 * are hand-written COPY rows (the form PostgreSQL's COPY TO prints) and the expected rows are
 * written out here from the rules of the compact form.
 */
import { describe, expect, it } from "vitest";
import { CHAIN_TABLES } from "../../../runtime/archive/chain-tables.js";
import {
  compactEventRow,
  compactEventRows,
  copyField,
  copyFieldValue,
  RESTORED_EVENT_COLUMNS,
} from "../../../runtime/archive/compact-event-rows.js";

const COLUMNS = CHAIN_TABLES.find((t) => t.name === "chain.events")?.columns ?? [];
const A = "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14";
const B = "SP3SPONSOR0000000000000000000000000000000";
const HASH = `0x${"ab".repeat(32)}`;

/** A bundle row: the named columns set, every other one \N, fields in bundle order. */
function row(values: Record<string, string>): string {
  return COLUMNS.map((c) => values[c] ?? "\\N").join("\t");
}
const base = {
  index_block_hash: HASH,
  event_index: "3",
  block_height: "7",
  canonical: "t",
  tx_id: HASH,
  tx_index: "0",
};

describe("compactEventRow", () => {
  it("leaves out the keys the columns rebuild and moves raw_value to bytes", () => {
    const transfer = row({
      ...base,
      event_type: "stx_transfer",
      sender: A,
      recipient: B,
      amount: "1000",
      payload: `{"memo": "6869", "amount": "1000", "sender": "${A}", "recipient": "${B}"}`,
    });
    expect(compactEventRow(transfer)).toBe(
      row({
        ...base,
        event_type: "stx_transfer",
        sender: A,
        recipient: B,
        amount: "1000",
        payload: '{"memo":"6869"}',
      }) + "\t\\N",
    );
    const print = row({
      ...base,
      event_type: "print",
      contract_id: `${A}.c`,
      topic: "print",
      payload: `{"topic": "print", "value": "hi", "raw_value": "0x0d00000002", "contract_id": "${A}.c"}`,
    });
    expect(compactEventRow(print)).toBe(
      `${row({ ...base, event_type: "print", contract_id: `${A}.c`, topic: "print", payload: '{"value":"hi"}' })}\t\\\\x0d00000002`,
    );
  });

  it("keeps values the columns would not give back as sent", () => {
    // "0007" is not the numeric column's text; upper-case hex is not what the column rebuilds.
    const padded = row({
      ...base,
      event_type: "stx_mint",
      recipient: B,
      amount: "7",
      payload: `{"amount": "0007", "recipient": "${B}"}`,
    });
    expect(compactEventRow(padded)).toBe(
      `${row({ ...base, event_type: "stx_mint", recipient: B, amount: "7", payload: '{"amount":"0007"}' })}\t\\N`,
    );
    const upper = row({ ...base, event_type: "nft_mint", recipient: B, payload: '{"raw_value": "0x0A"}' });
    expect(compactEventRow(upper)).toBe(
      `${row({ ...base, event_type: "nft_mint", recipient: B, payload: '{"raw_value":"0x0A"}' })}\t\\N`,
    );
  });

  it("keeps COPY escapes: a string with a tab, a newline and a backslash survives both ways", () => {
    // JSON text {"memo":"a<TAB>b<LF>c\\"} where the JSON escapes are themselves backslashes, which COPY doubles.
    const json = '{"memo":"a\\tb\\nc\\\\"}';
    expect(copyFieldValue(copyField(json))).toBe(json);
    const field = '{"memo":"a\\\\tb\\\\nc\\\\\\\\"}';
    expect(copyField(json)).toBe(field);
    const memo = row({ ...base, event_type: "stx_burn", sender: A, amount: "1", payload: field });
    expect(compactEventRow(memo)).toBe(`${memo}\t\\N`);
    // A raw newline or tab inside a value comes escaped.
    expect(copyField("x\ny\tz\r")).toBe("x\\ny\\tz\\r");
    expect(copyFieldValue("x\\ny\\tz\\r\\\\")).toBe("x\ny\tz\r\\");
    expect(copyFieldValue("\\N")).toBeNull();
  });

  it("passes through whole what it cannot compact exactly", () => {
    for (const payload of ['{"n": 1.0, "sender": "x"}', "[1]", "not json", "\\N"]) {
      const r = row({ ...base, event_type: "stx_burn", sender: "x", amount: "1", payload });
      expect(compactEventRow(r)).toBe(`${r}\t\\N`);
    }
  });

  it("over chunks cut anywhere gives the rows one by one", async () => {
    const rows = [0, 1, 2].map((i) =>
      row({
        ...base,
        event_index: String(i),
        event_type: "ft_transfer",
        asset_identifier: `${A}.t::t`,
        sender: A,
        recipient: B,
        amount: String(10 + i),
        payload: `{"asset_identifier":"${A}.t::t","sender":"${A}","recipient":"${B}","amount":"${10 + i}","é":"ü"}`,
      }),
    );
    const input = Buffer.from(`${rows.join("\n")}\n`, "utf8");
    const want = `${rows.map(compactEventRow).join("\n")}\n`;
    expect(want).toContain('{"é":"ü"}');
    for (const cut of [1, 7, 100, input.indexOf(0xc3) + 1, input.length - 1]) {
      async function* chunks() {
        for (let i = 0; i < input.length; i += cut) yield input.subarray(i, i + cut);
      }
      const out: Buffer[] = [];
      for await (const c of compactEventRows(chunks())) out.push(c);
      expect(Buffer.concat(out).toString("utf8")).toBe(want);
    }
    expect(RESTORED_EVENT_COLUMNS.at(-1)).toBe("raw_value");
  });
});
