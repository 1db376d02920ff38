/**
 * runtime/dispatcher/ssrf.ts (address classification, URL rules), subgraph-filter.ts (validation
 * and matching) and secret-box.ts (secrets sealed at rest).
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox, decodeSecretKey } from "../../../runtime/dispatcher/secret-box.js";
import { checkResolved, checkWebhookUrl, classifyAddress } from "../../../runtime/dispatcher/ssrf.js";
import { parseRowFilter, rowMatches } from "../../../runtime/dispatcher/subgraph-filter.js";
import { ServiceError } from "../../../runtime/internal/errors.js";
import type { ColumnMeta, TableMeta } from "../../../runtime/subgraphs/types.js";

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "shared"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "reserved"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["198.18.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "link-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["2001:db8::1", "reserved"],
    ["2606:4700:4700::1111", "public"],
    ["[::1]", "loopback"],
    ["example.com", "invalid"],
  ])("%s → %s", (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });
});

describe("checkWebhookUrl", () => {
  it.each([
    ["ftp://example.com/x", "http or https"],
    ["file:///etc/passwd", "http or https"],
    ["not a url", "valid absolute URL"],
    ["https://user:pw@example.com/", "credentials"],
    ["http://127.0.0.1:8080/hook", "loopback"],
    ["http://localhost/hook", "loopback"],
    ["http://api.localhost/hook", "loopback"],
    ["http://[::1]/hook", "loopback"],
    ["http://10.0.0.5/", "private"],
    ["http://169.254.169.254/latest/meta-data", "link-local"],
    ["http://0.0.0.0/", "unspecified"],
  ])("%s is refused (%s)", (url, why) => {
    const v = checkWebhookUrl(url, false);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toContain(why);
  });

  it("public targets pass; private ones pass only when allowed", () => {
    expect(checkWebhookUrl("https://hooks.example.com/a?b=1", false).ok).toBe(true);
    expect(checkWebhookUrl("http://93.184.216.34/", false).ok).toBe(true);
    expect(checkWebhookUrl("http://127.0.0.1:9/hook", true).ok).toBe(true);
    expect(checkWebhookUrl("ftp://127.0.0.1/", true).ok).toBe(false);
  });

  it("resolved addresses: any non-public one refuses the host", () => {
    expect(checkResolved(["93.184.216.34"], false).ok).toBe(true);
    expect(checkResolved(["93.184.216.34", "10.0.0.1"], false).ok).toBe(false);
    expect(checkResolved(["10.0.0.1"], true).ok).toBe(true);
  });
});

const col = (type: ColumnMeta["type"]): ColumnMeta => ({
  type,
  indexed: false,
  searchable: false,
  nullable: true,
  system: false,
});
const table: TableMeta = {
  name: "holdings",
  columns: {
    kind: col("text"),
    amount: col("int"),
    holder: col("principal"),
    active: col("boolean"),
    _id: col("serial"),
    _block_height: col("bigint"),
    _created_at: col("timestamp"),
  },
  uniqueKeys: [],
  filters: {},
  searchable: [],
  sortable: [],
};

function filterError(input: unknown): Record<string, unknown> | undefined {
  try {
    parseRowFilter(input, table);
  } catch (err) {
    if (err instanceof ServiceError && err.code === "VALIDATION_ERROR") return err.details;
    throw err;
  }
  return undefined;
}

describe("parseRowFilter", () => {
  it("normalises bare values to eq and numbers to strings", () => {
    expect(
      parseRowFilter({ kind: "ft", amount: { gte: 100, lt: "5000" }, holder: { in: ["SP1", "SP2"] } }, table),
    ).toEqual({
      kind: { eq: "ft" },
      amount: { gte: "100", lt: "5000" },
      holder: { in: ["SP1", "SP2"] },
    });
    expect(parseRowFilter(undefined, table)).toEqual({});
  });

  it.each([
    ["not an object", [1], "filter"],
    ["unknown column", { nope: 1 }, "filter.nope"],
    ["unknown operator", { amount: { like: "1" } }, "filter.amount.like"],
    ["order on text", { kind: { gt: "a" } }, "filter.kind.gt"],
    ["non-integer number", { amount: { gt: "1.5" } }, "filter.amount.gt"],
    ["empty in", { kind: { in: [] } }, "filter.kind.in"],
    ["in not an array", { kind: { in: "ft" } }, "filter.kind.in"],
    ["boolean column", { active: "yes" }, "filter.active.eq"],
    ["no operator", { kind: {} }, "filter.kind"],
    ["null in gt", { amount: { gt: null } }, "filter.amount.gt"],
  ])("%s → 400 naming %s", (_n, input, field) => {
    expect(filterError(input)).toMatchObject({ field });
  });
});

describe("rowMatches", () => {
  const row = {
    kind: "ft",
    amount: "123456789012345678901234567890",
    holder: "SP1",
    active: true,
    _id: 5,
    _block_height: "10",
    _created_at: new Date("2026-01-01T00:00:00Z"),
  };
  it.each([
    [{ kind: { eq: "ft" } }, true],
    [{ kind: { neq: "ft" } }, false],
    [{ amount: { gt: "123456789012345678901234567889" } }, true],
    [{ amount: { gt: "123456789012345678901234567890" } }, false],
    [{ amount: { gte: "123456789012345678901234567890", lte: "123456789012345678901234567890" } }, true],
    [{ _id: { lt: "6" } }, true],
    [{ _block_height: { in: ["9", "10"] } }, true],
    [{ holder: { in: ["SP2"] } }, false],
    [{ active: { eq: true } }, true],
    [{ _created_at: { gte: "2025-12-31T00:00:00Z" } }, true],
    [{ kind: { eq: null } }, false],
  ])("%j → %s", (filter, want) => {
    expect(rowMatches(parseRowFilter(filter, table), row)).toBe(want);
  });
});

describe("secret box", () => {
  const box = createSecretBox(randomBytes(32));
  it("seals and opens, bound to the webhook id; the ciphertext does not contain the secret", () => {
    const sealed = box.seal("whsec_abc", "wh_1");
    expect(sealed).not.toContain("whsec_abc");
    expect(sealed).not.toBe(box.seal("whsec_abc", "wh_1")); // fresh IV each time
    expect(box.open(sealed, "wh_1")).toBe("whsec_abc");
    expect(() => box.open(sealed, "wh_2")).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, "wh_1")).toThrow();
  });

  it("WEBHOOK_SECRET_KEY must be base64 of 32 bytes", () => {
    expect(decodeSecretKey(randomBytes(32).toString("base64"))).toHaveLength(32);
    expect(decodeSecretKey(randomBytes(16).toString("base64"))).toBeUndefined();
    expect(decodeSecretKey("not base64!")).toBeUndefined();
  });
});
