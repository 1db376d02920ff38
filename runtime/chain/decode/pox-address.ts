/**
 * PoX reward addresses as the PoX contracts take them: `{ version: (buff 1), hashbytes: (buff 20|32) }`
 * (SIP-007 hash modes). From the Bitcoin address a node writes in a `burnchain_op` (base58check
 * or segwit bech32/bech32m), or from a Stacks address (its hash under the matching Bitcoin script
 * type). Pure; null for anything that is not such an address.
 */
import { createHash } from "node:crypto";
import { AddressVersion, createAddress } from "@stacks/transactions";
import { bytesToHex0x, hexToBytesStrict } from "./hex.js";

export interface PoxAddress {
  /** 0x-hex of the one version byte: 0x00 p2pkh, 0x01 p2sh, 0x04 p2wpkh, 0x05 p2wsh, 0x06 p2tr. */
  version: string;
  /** 0x-hex of the 20- or 32-byte hash. */
  hashbytes: string;
}

/** Base58check version bytes of Bitcoin mainnet / testnet addresses → PoX version. */
const B58_VERSIONS: Record<number, number> = { 0: 0x00, 5: 0x01, 111: 0x00, 196: 0x01 };

export function poxAddressFromBitcoin(address: string): PoxAddress | null {
  return /^(bc|tb|bcrt)1/i.test(address) ? fromSegwit(address) : fromBase58check(address);
}

/** A Stacks address's hash as the Bitcoin address of the same kind (single-sig → p2pkh, multisig → p2sh). */
export function poxAddressFromStacks(address: string): PoxAddress | null {
  try {
    const { version, hash160 } = createAddress(address);
    const multisig = version === AddressVersion.MainnetMultiSig || version === AddressVersion.TestnetMultiSig;
    return { version: multisig ? "0x01" : "0x00", hashbytes: `0x${hash160}` };
  } catch {
    return null;
  }
}

const B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function fromBase58check(address: string): PoxAddress | null {
  let n = 0n;
  for (const ch of address) {
    const digit = B58_ALPHABET.indexOf(ch);
    if (digit < 0) return null;
    n = n * 58n + BigInt(digit);
  }
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const leadingZeros = address.length - address.replace(/^1+/, "").length;
  const bytes = Buffer.concat([Buffer.alloc(leadingZeros), Buffer.from(n === 0n ? "" : hex, "hex")]);
  // version(1) + hash160(20) + checksum(4)
  if (bytes.length !== 25) return null;
  const body = bytes.subarray(0, 21);
  const check = createHash("sha256").update(createHash("sha256").update(body).digest()).digest();
  if (!check.subarray(0, 4).equals(bytes.subarray(21))) return null;
  const version = B58_VERSIONS[body[0]];
  if (version === undefined) return null;
  return { version: bytesToHex0x(Uint8Array.of(version)), hashbytes: bytesToHex0x(body.subarray(1)) };
}

const BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

function polymod(values: number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= gen[i];
  }
  return chk >>> 0;
}

/** BIP-173 / BIP-350 segwit address → witness program (v0: 20 → p2wpkh, 32 → p2wsh; v1: 32 → p2tr). */
function fromSegwit(address: string): PoxAddress | null {
  const lower = address.toLowerCase();
  if (lower !== address && address.toUpperCase() !== address) return null;
  const sep = lower.lastIndexOf("1");
  if (sep < 1 || lower.length - sep < 7) return null;
  const hrp = lower.slice(0, sep);
  const data: number[] = [];
  for (const ch of lower.slice(sep + 1)) {
    const v = BECH32_CHARSET.indexOf(ch);
    if (v < 0) return null;
    data.push(v);
  }
  const expanded = [...hrp].map((c) => c.charCodeAt(0) >> 5);
  expanded.push(0, ...[...hrp].map((c) => c.charCodeAt(0) & 31));
  const check = polymod([...expanded, ...data]);
  const witnessVersion = data[0];
  if (check !== (witnessVersion === 0 ? BECH32_CONST : BECH32M_CONST)) return null;
  // 5-bit groups (after the version, before the 6-symbol checksum) → bytes
  let acc = 0;
  let bits = 0;
  const program: number[] = [];
  for (const v of data.slice(1, -6)) {
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      program.push((acc >> bits) & 0xff);
    }
  }
  if (bits >= 5 || (acc & ((1 << bits) - 1)) !== 0) return null;
  let version: number | null = null;
  if (witnessVersion === 0 && program.length === 20) version = 0x04;
  else if (witnessVersion === 0 && program.length === 32) version = 0x05;
  else if (witnessVersion === 1 && program.length === 32) version = 0x06;
  if (version === null) return null;
  return { version: bytesToHex0x(Uint8Array.of(version)), hashbytes: bytesToHex0x(Uint8Array.from(program)) };
}

/** The `pox-addr` tuple of a PoX print event (`{ version: 0x.., hashbytes: 0x.. }`), else null. */
export function poxAddressFromTuple(v: unknown): PoxAddress | null {
  if (typeof v !== "object" || v === null) return null;
  const { version, hashbytes } = v as Record<string, unknown>;
  if (typeof version !== "string" || typeof hashbytes !== "string") return null;
  try {
    if (hexToBytesStrict(version).length !== 1) return null;
    hexToBytesStrict(hashbytes);
  } catch {
    return null;
  }
  return { version: version.toLowerCase(), hashbytes: hashbytes.toLowerCase() };
}
