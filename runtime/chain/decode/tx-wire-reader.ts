/**
 * A strict reader of consensus-serialized Stacks transactions (SIP-005), pure over the bytes:
 * reads what the indexer keeps (network, spenders, nonce, fee, payload facts) and walks over the
 * rest (signatures, post conditions, code bodies) without building objects for it. Decoding with
 * @stacks/transactions costs most of the decode CPU (it c32-encodes every principal it meets).
 *
 * It refuses exactly what `deserializeTransaction` refuses, plus truncation and trailing bytes
 * (which that library does not check itself): unknown enum values, names over 128 bytes, Clarity
 * tuple keys that are not Clarity names, buffers over 1 MiB, principal versions of 32 and more,
 * invalid uncompressed multisig keys, string-ascii values too long for its decoder. Each refusal
 * throws a TxWireError saying why. One deliberate difference: Clarity values nested more than
 * 1024 deep are refused (the chain allows 32; the library recurses until the stack runs out).
 */
import { uncompressPublicKey } from "@stacks/transactions";
import type { TxType } from "../types.js";
import { c32Address } from "./address-cache.js";

export class TxWireError extends Error {}

/** One spending condition: the spender's address and its nonce and fee (decimal strings). */
export interface SpenderFacts {
  address: string;
  nonce: string;
  fee: string;
}

export interface TransactionWire {
  origin: SpenderFacts;
  /** The sponsor's spending condition of a sponsored transaction, null otherwise. */
  sponsor: SpenderFacts | null;
  txType: TxType;
  /** `<address>.<name>` of a contract call; the bare name of a deploy (the deployer is the origin). */
  contractName: string | null;
  contractAddress: string | null;
  functionName: string | null;
  /** Contract-call arguments exactly as sent: 0x-hex of each consensus-serialized Clarity value. */
  functionArgs: string[] | null;
  /** Token-transfer recipient, or the coinbase's alternative reward recipient when named. */
  recipient: string | null;
  amount: string | null;
  /** Token-transfer memo: its 34 bytes as 0x-hex. */
  memo: string | null;
}

const MAINNET_TX_VERSION = 0x00;
const TESTNET_TX_VERSION = 0x80;
const AUTH_STANDARD = 0x04;
const AUTH_SPONSORED = 0x05;
const HASH_MODE_P2PKH = 0x00;
const HASH_MODE_P2WPKH = 0x02;
const HASH_MODE_P2WSH = 0x03;
const HASH_MODE_P2WSH_NON_SEQUENTIAL = 0x07;
/** Multisig hash modes: P2SH, P2WSH and their order-independent variants. */
const MULTISIG_HASH_MODES = new Set([0x01, HASH_MODE_P2WSH, 0x05, HASH_MODE_P2WSH_NON_SEQUENTIAL]);
const ADDRESS_VERSION = { mainnetSingle: 22, mainnetMulti: 20, testnetSingle: 26, testnetMulti: 21 };

const SIGNATURE_BYTES = 65;
const COINBASE_BYTES = 32;
const VRF_PROOF_BYTES = 80;
const MEMO_BYTES = 34;
/** version(1) + sequence(2) + prev_block(32) + tx_merkle_root(32) + signature(65), twice. */
const POISON_HEADERS_BYTES = 2 * (1 + 2 + 32 + 32 + 65);
/** Tenure change: tenure, previous tenure and burn view consensus hashes (20 each), previous
 * tenure end (32), previous tenure block count (4); then the cause byte and a hash160. */
const TENURE_CHANGE_HEAD_BYTES = 20 + 20 + 20 + 32 + 4;
/** The library's bounds on length-prefixed strings (UTF-8 bytes after decoding). */
const NAME_MAX_BYTES = 128;
const CODE_BODY_MAX_BYTES = 100_000;
/** @stacks/transactions STRING_MAX_LENGTH, the bound on a versioned contract's code body. */
const VERSIONED_CODE_BODY_MAX_BYTES = 1 + 16 * 1024 * 1024 + (165 + 16 * (16 + 2 + 20 + 4));
const BUFFER_MAX_BYTES = 1_048_576;
/** Clarity values nest at most 32 deep on chain; far deeper nesting is refused as garbage. */
const MAX_CLARITY_NESTING = 1024;
/** Strings below this length are always readable by the library (see libraryCanReadAscii). */
const LONG_ASCII = 32_768;

const FUNGIBLE_CONDITION_CODES = new Set([0x01, 0x02, 0x03, 0x04, 0x05]);
const NON_FUNGIBLE_CONDITION_CODES = new Set([0x10, 0x11, 0x12]);
const POX_CONDITION_CODES = new Set([0x30, 0x31, 0x32]);
const TENURE_CHANGE_CAUSES = new Set([0, 1, 2, 3, 4, 5, 6]);
const CLARITY_VERSIONS = new Set([1, 2, 3, 4, 5, 6]);

const PAYLOAD_TYPES: Record<number, TxType> = {
  0: "token_transfer",
  1: "smart_contract",
  2: "contract_call",
  3: "poison_microblock",
  4: "coinbase",
  5: "coinbase_to_alt_recipient",
  6: "versioned_smart_contract",
  7: "tenure_change",
  8: "nakamoto_coinbase",
};

const utf8 = new TextDecoder();

/**
 * Reads one transaction that must span all of `bytes`. Throws TxWireError when it does not.
 * `hex`, when given, must be the lowercase hex of `bytes` (the node's raw_tx text): hex fields
 * are then cut from it instead of being encoded again.
 */
export function readTransactionWire(bytes: Uint8Array, hex?: string): TransactionWire {
  const c = new Cursor(bytes, hex);
  const version = c.u8();
  if (version !== MAINNET_TX_VERSION && version !== TESTNET_TX_VERSION) {
    throw new TxWireError(`unknown transaction version ${hexByte(version)}`);
  }
  // Mainnet is version 0x00 (the other accepted value, 0x80, is a testnet flavour).
  const mainnet = version === MAINNET_TX_VERSION;
  c.skip(4); // chain id
  const authType = c.u8();
  if (authType !== AUTH_STANDARD && authType !== AUTH_SPONSORED) {
    throw new TxWireError(`unknown authorization type ${hexByte(authType)}`);
  }
  const origin = readSpendingCondition(c, mainnet);
  const sponsor = authType === AUTH_SPONSORED ? readSpendingCondition(c, mainnet) : null;
  const anchorMode = c.u8();
  if (anchorMode < 0x01 || anchorMode > 0x03) throw new TxWireError(`unknown anchor mode ${hexByte(anchorMode)}`);
  const postConditionMode = c.u8();
  if (postConditionMode < 0x01 || postConditionMode > 0x03) {
    throw new TxWireError(`unknown post-condition mode ${hexByte(postConditionMode)}`);
  }
  const postConditions = c.u32();
  for (let i = 0; i < postConditions; i++) skipPostCondition(c);

  const facts: TransactionWire = {
    origin,
    sponsor,
    txType: "token_transfer",
    contractName: null,
    contractAddress: null,
    functionName: null,
    functionArgs: null,
    recipient: null,
    amount: null,
    memo: null,
  };
  readPayload(c, facts);
  if (c.pos < bytes.length) throw new TxWireError(`${bytes.length - c.pos} trailing byte(s) after the transaction`);
  return facts;
}

function readSpendingCondition(c: Cursor, mainnet: boolean): SpenderFacts {
  const hashMode = c.u8();
  const singleSig = hashMode === HASH_MODE_P2PKH || hashMode === HASH_MODE_P2WPKH;
  if (!singleSig && !MULTISIG_HASH_MODES.has(hashMode)) {
    throw new TxWireError(`unknown address hash mode ${hexByte(hashMode)}`);
  }
  const signer = c.hex(20);
  const nonce = c.u64Decimal();
  const fee = c.u64Decimal();
  if (singleSig) {
    const keyEncoding = c.u8();
    if (keyEncoding > 0x01) throw new TxWireError(`unknown public key encoding ${hexByte(keyEncoding)}`);
    if (hashMode === HASH_MODE_P2WPKH && keyEncoding !== 0x00) {
      throw new TxWireError("P2WPKH spending condition with an uncompressed key");
    }
    c.skip(SIGNATURE_BYTES);
  } else {
    skipMultisigFields(c, hashMode);
  }
  // P2PKH pays to a single-sig address; every other mode (P2WPKH is P2SH-wrapped) to a multisig one.
  const version =
    hashMode === HASH_MODE_P2PKH
      ? mainnet
        ? ADDRESS_VERSION.mainnetSingle
        : ADDRESS_VERSION.testnetSingle
      : mainnet
        ? ADDRESS_VERSION.mainnetMulti
        : ADDRESS_VERSION.testnetMulti;
  return { address: c32Address(version, signer), nonce, fee };
}

/** Multisig auth fields (public keys and signatures), then the required signature count. */
function skipMultisigFields(c: Cursor, hashMode: number): void {
  const fields = c.u32();
  let haveUncompressed = false;
  let signatures = 0;
  for (let i = 0; i < fields; i++) {
    const fieldType = c.u8();
    switch (fieldType) {
      case 0x00: // public key, compressed
        if (skipPublicKey(c)) haveUncompressed = true;
        break;
      case 0x01: {
        // public key, uncompressed: must be a point on the curve
        const start = c.pos;
        skipPublicKey(c);
        try {
          uncompressPublicKey(c.bytes.subarray(start, c.pos));
        } catch {
          throw new TxWireError("multisig public key is not a valid secp256k1 point");
        }
        haveUncompressed = true;
        break;
      }
      case 0x02: // signature, compressed key
      case 0x03: // signature, uncompressed key
        if (fieldType === 0x03) haveUncompressed = true;
        c.skip(SIGNATURE_BYTES);
        signatures++;
        if (signatures === 65536) throw new TxWireError("too many multisig signatures");
        break;
      default:
        throw new TxWireError(`unknown auth field type ${hexByte(fieldType)}`);
    }
  }
  c.skip(2); // signatures required
  if (haveUncompressed && (hashMode === HASH_MODE_P2WSH || hashMode === HASH_MODE_P2WSH_NON_SEQUENTIAL)) {
    throw new TxWireError("uncompressed keys are not allowed in this hash mode");
  }
}

/** A public key: 65 bytes when its first byte is 0x04, else 33. True when it is uncompressed. */
function skipPublicKey(c: Cursor): boolean {
  const first = c.u8();
  c.skip(first === 0x04 ? 64 : 32);
  return first === 0x04;
}

function skipPostCondition(c: Cursor): void {
  const type = c.u8();
  if (type > 0x04) throw new TxWireError(`unknown post-condition type ${hexByte(type)}`);
  const principal = c.u8();
  switch (principal) {
    case 0x01: // origin
      break;
    case 0x02: // standard
      c.skip(21);
      break;
    case 0x03: // contract
      c.skip(21);
      c.name();
      break;
    default:
      throw new TxWireError(`unknown post-condition principal type ${hexByte(principal)}`);
  }
  if (type === 0x01 || type === 0x02) {
    // asset: contract address, contract name, asset name
    c.skip(21);
    c.name();
    c.name();
  }
  if (type === 0x02) skipClarityValue(c, 0); // the NFT asset value
  const code = c.u8();
  const codes =
    type === 0x02 ? NON_FUNGIBLE_CONDITION_CODES : type === 0x04 ? POX_CONDITION_CODES : FUNGIBLE_CONDITION_CODES;
  if (!codes.has(code)) throw new TxWireError(`unknown post-condition code ${hexByte(code)}`);
  if (type === 0x00 || type === 0x01 || type === 0x03) c.skip(8); // amount
}

function readPayload(c: Cursor, facts: TransactionWire): void {
  const type = c.u8();
  const txType = PAYLOAD_TYPES[type];
  if (txType === undefined) throw new TxWireError(`unknown payload type ${hexByte(type)}`);
  facts.txType = txType;
  switch (type) {
    case 0x00: // token transfer
      facts.recipient = readPrincipalValue(c, 0);
      facts.amount = c.u64Decimal();
      facts.memo = c.hex0x(MEMO_BYTES);
      break;
    case 0x02: {
      // contract call
      const version = c.u8();
      if (version >= 32) throw new TxWireError(`contract address version ${version} is not a c32 version`);
      facts.contractAddress = c32Address(version, c.hex(20));
      facts.contractName = c.name();
      facts.functionName = c.name();
      const count = c.u32();
      const args: string[] = [];
      for (let i = 0; i < count; i++) {
        const start = c.pos;
        skipClarityValue(c, 0);
        args.push(`0x${c.hexOf(start, c.pos)}`);
      }
      facts.functionArgs = args;
      break;
    }
    case 0x01: // smart contract
      facts.contractName = c.name();
      c.codeBody(CODE_BODY_MAX_BYTES);
      break;
    case 0x06: {
      // versioned smart contract
      const clarityVersion = c.u8();
      if (!CLARITY_VERSIONS.has(clarityVersion)) {
        throw new TxWireError(`unknown Clarity version ${clarityVersion}`);
      }
      facts.contractName = c.name();
      c.codeBody(VERSIONED_CODE_BODY_MAX_BYTES);
      break;
    }
    case 0x03: // poison microblock: two microblock headers
      c.skip(POISON_HEADERS_BYTES);
      break;
    case 0x04: // coinbase
      c.skip(COINBASE_BYTES);
      break;
    case 0x05: // coinbase to an alternative recipient
      c.skip(COINBASE_BYTES);
      facts.recipient = readPrincipalValue(c, 0);
      break;
    case 0x08: // nakamoto coinbase: optional recipient, then the VRF proof
      c.skip(COINBASE_BYTES);
      if (c.peek() === 0x0a) {
        c.pos++;
        facts.recipient = readPrincipalValue(c, 1);
      } else {
        skipClarityValue(c, 0);
      }
      c.skip(VRF_PROOF_BYTES);
      break;
    case 0x07: {
      // tenure change
      c.skip(TENURE_CHANGE_HEAD_BYTES);
      const cause = c.u8();
      if (!TENURE_CHANGE_CAUSES.has(cause)) throw new TxWireError(`unknown tenure change cause ${cause}`);
      c.skip(20);
      break;
    }
  }
}

/**
 * A Clarity value read for the principal it names (looking through `some` wrappers): the c32
 * address or contract id, or null for a value of any other type (still checked and skipped).
 */
function readPrincipalValue(c: Cursor, depth: number): string | null {
  if (depth > MAX_CLARITY_NESTING) throw new TxWireError("Clarity value nested too deeply");
  const type = c.peek();
  if (type === 0x05 || type === 0x06) {
    c.pos++;
    const version = principalVersion(c);
    const address = c32Address(version, c.hex(20));
    return type === 0x05 ? address : `${address}.${c.contractName()}`;
  }
  if (type === 0x0a) {
    c.pos++;
    return readPrincipalValue(c, depth + 1);
  }
  skipClarityValue(c, depth);
  return null;
}

/** Walks over one consensus-serialized Clarity value, refusing what the library refuses. */
function skipClarityValue(c: Cursor, depth: number): void {
  if (depth > MAX_CLARITY_NESTING) throw new TxWireError("Clarity value nested too deeply");
  const type = c.u8();
  switch (type) {
    case 0x00: // int
    case 0x01: // uint
      c.skip(16);
      break;
    case 0x02: {
      // buffer
      const length = c.u32();
      if (length > BUFFER_MAX_BYTES) throw new TxWireError("Clarity buffer longer than 1 MiB");
      c.skip(length);
      break;
    }
    case 0x0d: {
      // string-ascii
      const length = c.u32();
      const start = c.skip(length);
      if (length > LONG_ASCII && !libraryCanReadAscii(c.bytes.subarray(start, c.pos))) {
        throw new TxWireError("Clarity string-ascii too long to decode");
      }
      break;
    }
    case 0x0e: // string-utf8
      c.skip(c.u32());
      break;
    case 0x03: // true
    case 0x04: // false
    case 0x09: // none
      break;
    case 0x05: // standard principal
      principalVersion(c);
      c.skip(20);
      break;
    case 0x06: // contract principal
      principalVersion(c);
      c.skip(20);
      c.contractName();
      break;
    case 0x07: // ok
    case 0x08: // err
    case 0x0a: // some
      skipClarityValue(c, depth + 1);
      break;
    case 0x0b: {
      // list
      const n = c.u32();
      for (let i = 0; i < n; i++) skipClarityValue(c, depth + 1);
      break;
    }
    case 0x0c: {
      // tuple: n × (Clarity name, value)
      const n = c.u32();
      for (let i = 0; i < n; i++) {
        c.tupleKey();
        skipClarityValue(c, depth + 1);
      }
      break;
    }
    default:
      throw new TxWireError(`unknown Clarity type id ${type}`);
  }
}

/**
 * The library reads string-ascii with `String.fromCharCode.apply`, which overflows the stack on
 * strings past roughly 125,000 characters (the bound depends on the engine), refusing the
 * transaction; a long string is put through the same call to get the same verdict.
 */
function libraryCanReadAscii(text: Uint8Array): boolean {
  try {
    String.fromCharCode.apply(null, text as unknown as number[]);
    return true;
  } catch {
    return false;
  }
}

/** A principal's address version: c32 has 32 of them. */
function principalVersion(c: Cursor): number {
  const version = c.u8();
  if (version >= 32) throw new TxWireError(`principal version ${version} is not a c32 version`);
  return version;
}

class Cursor {
  pos = 0;
  constructor(
    readonly bytes: Uint8Array,
    private readonly text?: string,
  ) {}

  /** Lowercase hex of `bytes[start, end)`. */
  hexOf(start: number, end: number): string {
    return this.text === undefined ? hexOf(this.bytes, start, end) : this.text.slice(2 * start, 2 * end);
  }

  /** Moves past `n` bytes, returning where they start. */
  skip(n: number): number {
    const start = this.pos;
    if (start + n > this.bytes.length) throw new TxWireError("truncated transaction");
    this.pos = start + n;
    return start;
  }

  peek(): number {
    if (this.pos >= this.bytes.length) throw new TxWireError("truncated transaction");
    return this.bytes[this.pos];
  }

  u8(): number {
    if (this.pos >= this.bytes.length) throw new TxWireError("truncated transaction");
    return this.bytes[this.pos++];
  }

  u32(): number {
    const p = this.skip(4);
    const b = this.bytes;
    return ((b[p] << 24) >>> 0) + (b[p + 1] << 16) + (b[p + 2] << 8) + b[p + 3];
  }

  /** A big-endian u64 as a decimal string. */
  u64Decimal(): string {
    const high = this.u32();
    const low = this.u32();
    // Below 2^53 a double holds it exactly.
    if (high < 0x200000) return String(high * 0x100000000 + low);
    return ((BigInt(high) << 32n) | BigInt(low)).toString();
  }

  hex(n: number): string {
    const start = this.skip(n);
    return this.hexOf(start, this.pos);
  }

  hex0x(n: number): string {
    return `0x${this.hex(n)}`;
  }

  /** A 1-byte-length-prefixed name, decoded as the library does (UTF-8, at most 128 bytes). */
  name(): string {
    return this.nameText().value;
  }

  /** A contract name inside a Clarity principal: under 128 bytes. */
  contractName(): string {
    const text = this.nameText();
    if (text.bytes >= NAME_MAX_BYTES) throw new TxWireError("contract name of 128 bytes or more");
    return text.value;
  }

  private nameText(): { value: string; bytes: number } {
    const length = this.u8();
    const start = this.skip(length);
    const text = decodeText(this.bytes, start, this.pos);
    if (text.bytes > NAME_MAX_BYTES) throw new TxWireError(`name longer than ${NAME_MAX_BYTES} bytes`);
    return text;
  }

  /** A tuple key: a Clarity name (ASCII, letter first, under 128 characters). */
  tupleKey(): void {
    const length = this.u8();
    const start = this.skip(length);
    if (length >= NAME_MAX_BYTES || !isClarityName(this.bytes, start, this.pos)) {
      throw new TxWireError("Clarity tuple key is not a Clarity name");
    }
  }

  /** A contract's code body: 4-byte length, at most `maxBytes` UTF-8 bytes once decoded. */
  codeBody(maxBytes: number): void {
    const length = this.u32();
    const start = this.skip(length);
    // Decoding never more than triples the byte count (a bad byte becomes U+FFFD, 3 bytes).
    if (length * 3 <= maxBytes) return;
    if (decodeText(this.bytes, start, this.pos).bytes > maxBytes) {
      throw new TxWireError(`contract code longer than ${maxBytes} bytes`);
    }
  }
}

/** Text of `bytes[start, end)` as TextDecoder reads it (bad sequences → U+FFFD, BOM dropped),
 * with its UTF-8 length. ASCII, the usual case, is read without the decoder. */
function decodeText(bytes: Uint8Array, start: number, end: number): { value: string; bytes: number } {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if (bytes[i] >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return { value: latin1Of(bytes, start, end), bytes: end - start };
  const value = utf8.decode(bytes.subarray(start, end));
  return { value, bytes: Buffer.byteLength(value) };
}

/** The library's Clarity-name rule: /^[a-zA-Z]([a-zA-Z0-9]|[-_!?+<>=/*])*$|^[-+=/*]$|^[<>]=?$/. */
function isClarityName(bytes: Uint8Array, start: number, end: number): boolean {
  const n = end - start;
  if (n === 0) return false;
  const first = bytes[start];
  if (isLetter(first)) {
    for (let i = start + 1; i < end; i++) {
      const b = bytes[i];
      if (!isLetter(b) && !(b >= 0x30 && b <= 0x39) && !NAME_SYMBOLS.has(b)) return false;
    }
    return true;
  }
  if (n === 1) return SINGLE_SYMBOL_NAMES.has(first);
  // "<=" and ">="
  return n === 2 && (first === 0x3c || first === 0x3e) && bytes[start + 1] === 0x3d;
}

const NAME_SYMBOLS = new Set([..."-_!?+<>=/*"].map((ch) => ch.charCodeAt(0)));
const SINGLE_SYMBOL_NAMES = new Set([..."-+=/*<>"].map((ch) => ch.charCodeAt(0)));

function isLetter(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}

function latin1Of(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("latin1");
}

function hexOf(bytes: Uint8Array, start: number, end: number): string {
  return `${Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("hex")}`;
}

function hexByte(value: number): string {
  return `0x${value.toString(16).padStart(2, "0")}`;
}
