/** Deterministic key material: private keys derived from the seed, addresses, and one real template signature each. */
import { createHash } from "node:crypto";
import {
  AddressHashMode,
  StacksTransactionWire,
  TransactionSigner,
  createAddress,
  createSingleSigSpendingCondition,
  createStandardAuth,
  createTokenTransferPayload,
  privateKeyToAddress,
  privateKeyToPublic,
} from "@stacks/transactions";
import type { Network } from "../config/networks.js";
import { principalHex } from "./clarity-hex.js";

/** The clarinet devnet deployer (public test key of the default devnet mnemonic). */
export const DEVNET_DEPLOYER_KEY = "753b7cc01a1a2e86221266a154af739463fce51219d97e4f856cd7200c3bd2a601";

const SECP256K1_ORDER = BigInt("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");

export interface Account {
  readonly label: string;
  readonly privateKey: string;
  readonly publicKey: string;
  readonly address: string;
  readonly hash160: string;
  /** Serialized standard-principal Clarity value (hex, no 0x). */
  readonly principalHex: string;
  /** A real recoverable signature (65 bytes hex) over this account's first token transfer. */
  readonly templateSignature: string;
}

export function stacksNetworkName(network: Network): "mainnet" | "testnet" {
  return network === "mainnet" ? "mainnet" : "testnet";
}

/** Builds an account from a private key: public key, address, and a signature made for real. */
export function accountFromKey(label: string, privateKey: string, network: Network): Account {
  const networkName = stacksNetworkName(network);
  const publicKey = privateKeyToPublic(privateKey) as string;
  const address = privateKeyToAddress(privateKey, networkName);
  const hash160 = createAddress(address).hash160;
  return {
    label,
    privateKey,
    publicKey,
    address,
    hash160,
    principalHex: principalHex(address),
    templateSignature: signTemplate(privateKey, publicKey, address, networkName),
  };
}

/** Deterministic private key (compressed, 33 bytes hex) for `label` under `seed`. */
export function derivePrivateKey(seed: string | number, label: string): string {
  for (let attempt = 0; ; attempt++) {
    const digest = createHash("sha256")
      .update(`sluice-simulator-key:${String(seed)}:${label}:${attempt}`)
      .digest("hex");
    const scalar = BigInt(`0x${digest}`);
    if (scalar > 0n && scalar < SECP256K1_ORDER) return `${digest}01`;
  }
}

/** The accounts of one simulation; user accounts are derived on first use (signing costs ~1 ms each). */
export class AccountBook {
  readonly deployer: Account;
  readonly miner: Account;
  /** Calls the sBTC signer-only functions (deposit completion, withdrawal accept/reject, key rotation). */
  readonly sbtcOperator: Account;
  private readonly users: (Account | undefined)[];

  constructor(
    private readonly seed: string | number,
    private readonly network: Network,
    readonly userCount: number,
  ) {
    const deployerKey = network === "devnet" ? DEVNET_DEPLOYER_KEY : derivePrivateKey(seed, "deployer");
    this.deployer = accountFromKey("deployer", deployerKey, network);
    this.miner = accountFromKey("miner", derivePrivateKey(seed, "miner"), network);
    this.sbtcOperator = accountFromKey("sbtc-operator", derivePrivateKey(seed, "sbtc-operator"), network);
    this.users = new Array(userCount);
  }

  user(index: number): Account {
    let account = this.users[index];
    if (!account) {
      const label = `user-${index}`;
      account = accountFromKey(label, derivePrivateKey(this.seed, label), this.network);
      this.users[index] = account;
    }
    return account;
  }
}

function signTemplate(privateKey: string, publicKey: string, address: string, network: "mainnet" | "testnet"): string {
  const tx = new StacksTransactionWire({
    auth: createStandardAuth(createSingleSigSpendingCondition(AddressHashMode.P2PKH, publicKey, 0, 180)),
    payload: createTokenTransferPayload(address, 1, ""),
    network,
  });
  new TransactionSigner(tx).signOrigin(privateKey);
  const condition = tx.auth.spendingCondition;
  if (!("signature" in condition)) throw new Error("expected a single-signature spending condition");
  return condition.signature.data;
}
