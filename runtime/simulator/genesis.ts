/**
 * Genesis funding, the way a devnet's boot block credits its configured balances: one transaction
 * from the boot address (a zero-STX transfer to itself, fee 0, zero signature, like mainnet's
 * genesis) carrying an stx_mint event per funded account.
 */
import type { Network } from "../config/networks.js";
import type { Account, AccountBook } from "./accounts.js";
import { ZERO_COST, type TxPlan } from "./action-kit.js";
import { principalHex } from "./clarity-hex.js";
import { BOOT_ADDRESS } from "./contracts.js";
import * as ev from "./events.js";
import { tokenTransferPayload } from "./tx-wire.js";

/** µSTX per STX. */
export const MICRO_STX = 1_000_000n;

/** The boot address as a transaction sender: hash160 of zeros, no key, an all-zero signature. */
export function bootAccount(network: Network): Account {
  const address = BOOT_ADDRESS[network];
  return {
    label: "boot",
    privateKey: "",
    publicKey: "",
    address,
    hash160: "00".repeat(20),
    principalHex: principalHex(address),
    templateSignature: "00".repeat(65),
  };
}

/** The accounts that send transactions and are funded at genesis: deployer, sBTC operator, then every user. */
export function fundedAccounts(accounts: AccountBook): Account[] {
  const users = Array.from({ length: accounts.userCount }, (_, i) => accounts.user(i));
  return [accounts.deployer, accounts.sbtcOperator, ...users];
}

/** The genesis transaction: `genesisStx` STX minted to each funded account. */
export function genesisPlan(network: Network, accounts: AccountBook, genesisStx: number): TxPlan {
  const boot = bootAccount(network);
  const amount = BigInt(genesisStx) * MICRO_STX;
  return {
    sender: boot,
    txType: "token_transfer",
    payloadHex: tokenTransferPayload(boot.principalHex, 0, "00".repeat(34)),
    fee: 0,
    result: "0x0703",
    events: fundedAccounts(accounts).map((account) => ev.stxMint(account.address, amount)),
    contractInterface: null,
    cost: ZERO_COST,
    canAbort: false,
    apply: () => {},
  };
}
