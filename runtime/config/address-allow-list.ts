/**
 * OBSERVER_ALLOW_FROM: the addresses allowed to post to the observer when it binds past loopback.
 * A stacks-node cannot send a credential, so its source address is the only thing to check.
 */
import { BlockList, isIP } from "node:net";

export interface AddressRange {
  /** The network address as written (host bits are ignored when matching). */
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/** Loopback is always allowed: a node on the same host keeps working whatever the list says. */
const LOOPBACK: readonly AddressRange[] = [
  { address: "127.0.0.0", prefix: 8, family: "ipv4" },
  { address: "::1", prefix: 128, family: "ipv6" },
];

/**
 * Pure: parses a comma-separated list of CIDRs or single addresses (IPv4 and IPv6), e.g.
 * `10.0.0.0/8, 192.168.1.5, fd00::/64`. Empty items are ignored; each bad item is one problem.
 */
export function parseAddressRanges(text: string): { ranges: AddressRange[]; problems: string[] } {
  const ranges: AddressRange[] = [];
  const problems: string[] = [];
  for (const item of text.split(",").map((s) => s.trim())) {
    if (item === "") continue;
    const range = parseAddressRange(item);
    if (range) ranges.push(range);
    else problems.push(JSON.stringify(item));
  }
  return { ranges, problems };
}

function parseAddressRange(item: string): AddressRange | undefined {
  const m = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(item);
  if (!m) return undefined;
  const version = isIP(m[1]);
  if (version === 0) return undefined;
  const family = version === 4 ? "ipv4" : "ipv6";
  const bits = version === 4 ? 32 : 128;
  const prefix = m[2] === undefined ? bits : Number(m[2]);
  return prefix <= bits ? { address: m[1], prefix, family } : undefined;
}

/**
 * A matcher for remote addresses (as `socket.remoteAddress` gives them); loopback always matches.
 * IPv4-mapped IPv6 addresses (`::ffff:10.0.0.5`, what a dual-stack listener reports for an IPv4
 * caller) match IPv4 ranges.
 */
export function createAddressMatcher(ranges: readonly AddressRange[]): (remoteAddress: string | undefined) => boolean {
  const list = new BlockList();
  for (const r of [...LOOPBACK, ...ranges]) list.addSubnet(r.address, r.prefix, r.family);
  return (remoteAddress) => {
    if (!remoteAddress) return false;
    const version = isIP(remoteAddress);
    if (version === 0) return false;
    return list.check(remoteAddress, version === 4 ? "ipv4" : "ipv6");
  };
}
