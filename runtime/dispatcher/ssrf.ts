/**
 * Webhook URL safety (DESIGN.md §6 WEBHOOK_ALLOW_PRIVATE), pure: which URLs may be
 * webhook targets and which IP addresses are off limits. URLs must be http(s) without credentials;
 * loopback, private, link-local, CGNAT, multicast and reserved addresses are refused unless
 * private targets are allowed. The check runs on the URL at create/update time and again on every
 * resolved address at connect time (see http-post.ts), so DNS rebinding cannot slip through.
 */
import { isIP } from "node:net";

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "shared" // 100.64.0.0/10 (carrier-grade NAT)
  | "unspecified"
  | "multicast"
  | "reserved"
  | "invalid";

/** Classifies an IPv4 or IPv6 literal. IPv4-mapped and NAT64 IPv6 addresses take their IPv4 class. */
export function classifyAddress(address: string): AddressClass {
  const ip = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const version = isIP(ip.split("%")[0]);
  if (version === 4) return classifyV4(ip.split(".").map(Number));
  if (version === 6) return classifyV6(ip.split("%")[0]);
  return "invalid";
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

function classifyV4(o: number[]): AddressClass {
  const [a, b, c] = o;
  if (a === 0) return a === 0 && o.every((x) => x === 0) ? "unspecified" : "reserved";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a === 100 && b >= 64 && b <= 127) return "shared";
  if (a >= 224 && a <= 239) return "multicast";
  if (a >= 240) return "reserved"; // includes 255.255.255.255
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return "reserved"; // IETF assignments, TEST-NET-1
  if (a === 198 && (b === 18 || b === 19)) return "reserved"; // benchmarking
  if ((a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return "reserved"; // TEST-NET-2/3
  return "public";
}

function classifyV6(ip: string): AddressClass {
  const g = expandV6(ip);
  if (!g) return "invalid";
  if (g.every((x) => x === 0)) return "unspecified";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), 64:ff9b::a.b.c.d (NAT64)
  const mapped = g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0);
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (mapped || nat64) return classifyV4([g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff]);
  if ((g[0] & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xffc0) === 0xfec0) return "private"; // deprecated site-local
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "reserved"; // documentation
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return "reserved"; // discard-only
  return "public";
}

/** Eight 16-bit groups of an IPv6 literal (with an optional dotted IPv4 tail), or undefined. */
function expandV6(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const o = tail[1].split(".").map(Number);
    text = `${text.slice(0, -tail[1].length)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((h) => Number.parseInt(h, 16)));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const fill = 8 - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  const groups = [...head, ...new Array(halves.length === 2 ? fill : 0).fill(0), ...rest];
  return groups.length === 8 && groups.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? groups : undefined;
}

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

/**
 * Static checks of a webhook URL: http(s), no credentials, a host, and (unless private targets
 * are allowed) no loopback name or non-public literal address. Names are checked again once
 * resolved (checkResolved).
 */
export function checkWebhookUrl(raw: unknown, allowPrivate: boolean): UrlVerdict {
  if (typeof raw !== "string" || raw === "") return { ok: false, reason: "url must be a non-empty string" };
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `url must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "url is not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "url must use http or https" };
  if (url.username || url.password) return { ok: false, reason: "url must not carry credentials" };
  if (!url.hostname) return { ok: false, reason: "url must name a host" };
  if (allowPrivate) return { ok: true, url };
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) {
    return { ok: false, reason: "url targets loopback; set WEBHOOK_ALLOW_PRIVATE=true to allow local receivers" };
  }
  const literal = host.startsWith("[") ? host.slice(1, -1) : host;
  if (isIP(literal)) {
    const cls = classifyAddress(literal);
    if (cls !== "public") return { ok: false, reason: privateReason(cls) };
  }
  return { ok: true, url };
}

/** Checks the addresses a host name resolved to; the first non-public one refuses the target. */
export function checkResolved(addresses: readonly string[], allowPrivate: boolean): UrlVerdict | { ok: true } {
  if (allowPrivate) return { ok: true };
  for (const a of addresses) {
    const cls = classifyAddress(a);
    if (cls !== "public") return { ok: false, reason: `${privateReason(cls)} (${a})` };
  }
  return { ok: true };
}

function privateReason(cls: AddressClass): string {
  return `url targets a ${cls} address; set WEBHOOK_ALLOW_PRIVATE=true to allow private receivers`;
}
