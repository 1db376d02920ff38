/**
 * OBSERVER_ALLOW_FROM parsing and matching (runtime/config/address-allow-list.ts): CIDRs and single
 * addresses in both families, loopback always allowed, IPv4-mapped callers matched as IPv4.
 */
import { describe, expect, it } from "vitest";
import { createAddressMatcher, parseAddressRanges } from "../../../runtime/config/address-allow-list.js";

describe("parseAddressRanges", () => {
  it("reads CIDRs and single addresses of both families, ignoring spaces and empty items", () => {
    expect(parseAddressRanges(" 10.0.0.0/8, 192.168.1.5 ,fd00::/64,,2001:db8::7 ")).toEqual({
      ranges: [
        { address: "10.0.0.0", prefix: 8, family: "ipv4" },
        { address: "192.168.1.5", prefix: 32, family: "ipv4" },
        { address: "fd00::", prefix: 64, family: "ipv6" },
        { address: "2001:db8::7", prefix: 128, family: "ipv6" },
      ],
      problems: [],
    });
  });

  it.each([
    ["10.0.0.0/33"],
    ["fd00::/129"],
    ["10.0.0.256"],
    ["10.0.0/8"],
    ["example.com"],
    ["10.0.0.0/"],
    ["10.0.0.0/8/8"],
    ["*"],
  ])("%j is reported as a problem", (item) => {
    expect(parseAddressRanges(`10.0.0.1, ${item}`)).toEqual({
      ranges: [{ address: "10.0.0.1", prefix: 32, family: "ipv4" }],
      problems: [JSON.stringify(item)],
    });
  });
});

describe("createAddressMatcher", () => {
  const allowed = createAddressMatcher(parseAddressRanges("10.0.0.0/8, 192.168.1.5, fd00::/64").ranges);

  it.each([
    ["10.255.3.4", true],
    ["11.0.0.1", false],
    ["192.168.1.5", true],
    ["192.168.1.6", false],
    ["fd00::1234", true],
    ["fd00:0:0:1::1", false],
    ["::ffff:10.0.0.5", true],
    ["::ffff:11.0.0.5", false],
    ["::ffff:192.168.1.5", true],
  ])("%j → %j", (address, want) => {
    expect(allowed(address)).toBe(want);
  });

  it("loopback callers are always allowed, also with an empty list", () => {
    const loopbackOnly = createAddressMatcher([]);
    for (const a of ["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1"]) expect(loopbackOnly(a), a).toBe(true);
    for (const a of ["10.0.0.1", "::2", "192.0.2.1"]) expect(loopbackOnly(a), a).toBe(false);
  });

  it("an unknown or malformed remote address is refused", () => {
    expect(allowed(undefined)).toBe(false);
    expect(allowed("")).toBe(false);
    expect(allowed("not-an-address")).toBe(false);
  });
});
