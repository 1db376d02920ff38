import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkPresigned, parseRange, presign } from "../../../runtime/archive/presign.js";

const secret = Buffer.alloc(32, 1);
const params = (url: string) => new URL(url, "http://x").searchParams;

describe("presigned URLs", () => {
  it("carry an HMAC-SHA256 of path and expiry", () => {
    const url = presign(secret, "/bundles/a.bundle.gz", 1000, 300);
    const p = params(url);
    expect(p.get("expires")).toBe("1300");
    expect(p.get("signature")).toBe(createHmac("sha256", secret).update("/bundles/a.bundle.gz\n1300").digest("hex"));
  });

  it("are accepted until they expire, then refused; edits are refused", () => {
    const p = params(presign(secret, "/b/x", 1000, 300));
    const check = (path: string, expires: unknown, sig: unknown, now: number) =>
      checkPresigned(secret, path, expires, sig, now);
    expect(check("/b/x", p.get("expires"), p.get("signature"), 1300)).toEqual({ ok: true });
    expect(check("/b/x", p.get("expires"), p.get("signature"), 1301)).toMatchObject({ ok: false, code: "URL_EXPIRED" });
    expect(check("/b/y", p.get("expires"), p.get("signature"), 1000)).toMatchObject({ code: "URL_SIGNATURE_INVALID" });
    expect(check("/b/x", "9999", p.get("signature"), 1000)).toMatchObject({ code: "URL_SIGNATURE_INVALID" });
    expect(check("/b/x", p.get("expires"), "00", 1000)).toMatchObject({ code: "URL_SIGNATURE_INVALID" });
    expect(check("/b/x", undefined, undefined, 1000)).toMatchObject({ code: "URL_SIGNATURE_INVALID" });
    // A valid signature under another secret is refused too.
    expect(checkPresigned(Buffer.alloc(32, 2), "/b/x", p.get("expires"), p.get("signature"), 1000)).toMatchObject({
      ok: false,
    });
  });
});

describe("Range header", () => {
  it.each([
    [undefined, null],
    ["bytes=0-9", { start: 0, end: 9 }],
    ["bytes=10-", { start: 10, end: 99 }],
    ["bytes=-5", { start: 95, end: 99 }],
    ["bytes=90-200", { start: 90, end: 99 }],
    ["bytes=100-", "invalid"],
    ["bytes=5-2", "invalid"],
    ["bytes=-", "invalid"],
    ["bytes=0-1,5-6", "invalid"],
    ["items=0-1", "invalid"],
  ])("%s of 100 bytes → %j", (header, want) => {
    expect(parseRange(header, 100)).toEqual(want);
  });
});
