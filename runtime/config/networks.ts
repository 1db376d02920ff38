/**
 * Per-network facts (DESIGN.md §6 NETWORK): address versions and the built-in contract ids that
 * subgraph specs reference as ${config.X}. Devnet ids are ours (the simulator deploys them).
 */
export const NETWORKS = ["mainnet", "testnet", "devnet"] as const;
export type Network = (typeof NETWORKS)[number];

export interface NetworkContracts {
  /** BNS-V2 name registry (prints new-name / transfer-name / renew-name / burn-name). */
  bnsContractId: string;
  /** sBTC registry (prints completed-deposit, withdrawal-*, key-rotation). */
  sbtcRegistryContractId: string;
  /** sBTC SIP-010 token contract and its asset identifier. */
  sbtcTokenContractId: string;
  sbtcAssetIdentifier: string;
}

const MAINNET_SBTC_DEPLOYER = "SM3VDXK3WZZSA84XXFKAFAF15NNZX32CTSG82JFQ4";
/**
 * The sBTC protocol deployment on the public testnet (sbtc-registry, sbtc-token, sbtc-deposit…
 * under one multisig deployer): the canonical testnet address on docs.stacks.co's sBTC pages and
 * in Clarinet's and the Hiro explorer's network tables. (SN3R84XZ…CSQS is the deployer of the
 * sbtc repository's local devenv; ST1F7QA2…VGWXT.sbtc-token is an older stand-alone SIP-010
 * faucet token with no registry.)
 */
const TESTNET_SBTC_DEPLOYER = "SN3VMHXEN64ZZF71JQ5VESXDWTR301XTTXGF4J8F1";

export const NETWORK_CONTRACTS: Record<Network, NetworkContracts> = {
  mainnet: {
    bnsContractId: "SP2QEZ06AGJ3RKJPBV14SY1V5BBFNAW33D96YPGZF.BNS-V2",
    sbtcRegistryContractId: `${MAINNET_SBTC_DEPLOYER}.sbtc-registry`,
    sbtcTokenContractId: `${MAINNET_SBTC_DEPLOYER}.sbtc-token`,
    sbtcAssetIdentifier: `${MAINNET_SBTC_DEPLOYER}.sbtc-token::sbtc-token`,
  },
  testnet: {
    // The BNS-V2 deployer's key on testnet (same hash160 as mainnet's SP2QEZ06…): the address in
    // the bns-v2 SDK's and Leather's network tables.
    bnsContractId: "ST2QEZ06AGJ3RKJPBV14SY1V5BBFNAW33D9SZJQ0M.BNS-V2",
    sbtcRegistryContractId: `${TESTNET_SBTC_DEPLOYER}.sbtc-registry`,
    sbtcTokenContractId: `${TESTNET_SBTC_DEPLOYER}.sbtc-token`,
    sbtcAssetIdentifier: `${TESTNET_SBTC_DEPLOYER}.sbtc-token::sbtc-token`,
  },
  devnet: {
    // The clarinet devnet deployer; the simulator deploys BNS-V2 and sBTC under it.
    bnsContractId: "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.BNS-V2",
    sbtcRegistryContractId: "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.sbtc-registry",
    sbtcTokenContractId: "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.sbtc-token",
    sbtcAssetIdentifier: "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.sbtc-token::sbtc-token",
  },
};
