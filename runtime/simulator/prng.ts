/** Seeded pseudo-random generator (xoshiro128**): every choice the simulator makes comes from here. */
import { createHash } from "node:crypto";

const HEX_BYTE: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Seeds the four state words from SHA-256 of the seed text, so any string or number works. */
  constructor(seed: string | number) {
    const digest = createHash("sha256")
      .update(`sluice-simulator:${String(seed)}`)
      .digest();
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12);
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** Next unsigned 32-bit integer. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  between(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1);
  }

  chance(p: number): boolean {
    return p > 0 && this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }

  /** `bytes` random bytes as lowercase hex (no 0x). */
  hex(bytes: number): string {
    let out = "";
    let word = 0;
    for (let i = 0; i < bytes; i++) {
      if ((i & 3) === 0) word = this.u32();
      out += HEX_BYTE[word & 0xff];
      word >>>= 8;
    }
    return out;
  }

  /** Fisher–Yates shuffle in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      const tmp = items[i];
      items[i] = items[j];
      items[j] = tmp;
    }
    return items;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Picks keys by weight; built once per mix. */
export class WeightedPicker<K extends string> {
  private readonly keys: K[];
  private readonly cumulative: number[];
  private readonly total: number;

  constructor(weights: Partial<Record<K, number>>) {
    this.keys = [];
    this.cumulative = [];
    let sum = 0;
    for (const [key, weight] of Object.entries(weights) as [K, number][]) {
      if (!(weight > 0)) continue;
      sum += weight;
      this.keys.push(key);
      this.cumulative.push(sum);
    }
    this.total = sum;
  }

  get empty(): boolean {
    return this.keys.length === 0;
  }

  pick(rng: Prng): K {
    const x = rng.float() * this.total;
    for (let i = 0; i < this.cumulative.length; i++) if (x < this.cumulative[i]) return this.keys[i];
    return this.keys[this.keys.length - 1];
  }
}
