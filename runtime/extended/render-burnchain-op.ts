/**
 * A Bitcoin-originated operation as the Stacks transaction it stands for, as Hiro's API renders
 * it: an STX transfer op is a `token_transfer`; stack-stx and delegate-stx are `contract_call`s to
 * the PoX contract with the op's values as the call's arguments; an aggregate key vote is a call
 * to `signers-voting`. Pure: from the details stored at ingest (runtime/chain/decode/burnchain-op.ts).
 */
import {
  AddressVersion,
  type ClarityValue,
  bufferCV,
  createAddress,
  noneCV,
  principalCV,
  someCV,
  tupleCV,
  uintCV,
} from "@stacks/transactions";
import type { BurnchainOpDetails } from "../chain/types.js";

const BOOT_MAINNET = "SP000000000000000000002Q6VF78";
const BOOT_TESTNET = "ST000000000000000000002AMW42H";

/** The call an op stands for; `args` null when a value it needs is not known. */
export interface SyntheticCall {
  contractId: string;
  functionName: string;
  args: ClarityValue[] | null;
}

export type SyntheticPayload =
  | { kind: "token_transfer"; recipient: string; amount: string; memo: string }
  | { kind: "contract_call"; call: SyntheticCall };

/**
 * The payload of an op. Unknown details (a failed op from a node that sends no `burnchain_op`,
 * which has no event either) give a call with empty names and no arguments: it ran as a contract
 * call, nothing says which.
 */
export function syntheticPayload(d: BurnchainOpDetails | null): SyntheticPayload {
  if (d === null) return { kind: "contract_call", call: { contractId: "", functionName: "", args: null } };
  const boot = isMainnet(d.sender) ? BOOT_MAINNET : BOOT_TESTNET;
  switch (d.op) {
    case "transfer_stx":
      return { kind: "token_transfer", recipient: d.recipient, amount: d.amount, memo: d.memo ?? "0x" };
    case "stack_stx": {
      let args: ClarityValue[] | null = null;
      if (d.pox_addr !== null) {
        args = [uintCV(d.amount), poxAddrCV(d.pox_addr), uintCV(d.start_burn_height), uintCV(d.lock_period)];
        // pox-4: (signer-sig (optional (buff 65))) (signer-key (buff 33)) (max-amount uint) (auth-id uint)
        if (d.signer_key !== null) {
          args.push(noneCV(), bufferCV(hexBytes(d.signer_key)), uintCV(d.max_amount ?? "0"), uintCV(d.auth_id ?? "0"));
        }
      }
      return { kind: "contract_call", call: { contractId: `${boot}.${d.contract}`, functionName: "stack-stx", args } };
    }
    case "delegate_stx":
      return {
        kind: "contract_call",
        call: {
          contractId: `${boot}.${d.contract}`,
          functionName: "delegate-stx",
          args: [
            uintCV(d.amount),
            principalCV(d.delegate_to),
            d.until_burn_height === null ? noneCV() : someCV(uintCV(d.until_burn_height)),
            d.pox_addr === null ? noneCV() : someCV(poxAddrCV(d.pox_addr)),
          ],
        },
      };
    case "vote_for_aggregate_key":
      return {
        kind: "contract_call",
        call: {
          contractId: `${boot}.signers-voting`,
          functionName: "vote-for-aggregate-public-key",
          args: [uintCV(d.signer_index), bufferCV(hexBytes(d.aggregate_key)), uintCV(d.round), uintCV(d.reward_cycle)],
        },
      };
  }
}

/** The contract an op's call goes to (for its stored interface), or null. */
export function syntheticContractId(d: BurnchainOpDetails | null): string | null {
  const p = syntheticPayload(d);
  return p.kind === "contract_call" && p.call.contractId !== "" ? p.call.contractId : null;
}

/** `{ hashbytes, version }`: keys in Clarity's (sorted) order, which the repr follows. */
function poxAddrCV(a: { version: string; hashbytes: string }): ClarityValue {
  return tupleCV({ hashbytes: bufferCV(hexBytes(a.hashbytes)), version: bufferCV(hexBytes(a.version)) });
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.replace(/^0x/, ""), "hex"));
}

function isMainnet(address: string): boolean {
  try {
    const { version } = createAddress(address);
    return version === AddressVersion.MainnetSingleSig || version === AddressVersion.MainnetMultiSig;
  } catch {
    return true;
  }
}
