/** c32 addresses of (version, hash160) pairs, remembered: the same few accounts appear in most
 * transactions and Clarity values, and each encoding hashes twice (the c32check checksum). */
import { addressToString, StacksWireType } from "@stacks/transactions";

const cache = new Map<string, string>();
const CACHE_MAX = 4096;

/** The c32 address of `version` and the 40-hex-digit `hash160` (throws as `addressToString` does). */
export function c32Address(version: number, hash160: string): string {
  const key = `${version}:${hash160}`;
  let address = cache.get(key);
  if (address === undefined) {
    address = addressToString({ type: StacksWireType.Address, version, hash160 });
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, address);
  }
  return address;
}
