/** The contract ids one simulation uses on its network, and which of them it deploys itself. */
import { NETWORK_CONTRACTS, type Network } from "../config/networks.js";
import {
  type ContractSource,
  bnsStandIn,
  sbtcStandIns,
  sbtcStxPool,
  sip009Collection,
  sip010Token,
  utilityContract,
} from "./contract-sources.js";

export interface AssetContract {
  contractId: string;
  /** `<contract>::<asset>` as events carry it. */
  assetIdentifier: string;
}

export interface SimContracts {
  pox4: string;
  bns: string;
  bnsAsset: string;
  sbtcRegistry: string;
  sbtcToken: string;
  sbtcAsset: string;
  sbtcLockedAsset: string;
  sbtcDeposit: string;
  sbtcWithdrawal: string;
  sbtcBootstrapSigners: string;
  utils: string;
  /** The sBTC/STX pool of the hot mix (deployed only when the mix has a hot share). */
  pool: string;
  /** SIP-010 tokens the deployer mints and burns. */
  fungibleTokens: AssetContract[];
  /** Tokens users transfer: the sim tokens plus sBTC (held after deposits). */
  transferableTokens: AssetContract[];
  nftCollections: AssetContract[];
  /** Deployed by the deployer account in the first block, in this order. */
  deploys: ContractSource[];
}

/** The boot (genesis) address of each network, which also owns the boot contracts (pox-4). */
export const BOOT_ADDRESS: Record<Network, string> = {
  mainnet: "SP000000000000000000002Q6VF78",
  testnet: "ST000000000000000000002AMW42H",
  devnet: "ST000000000000000000002AMW42H",
};

export function simContracts(
  network: Network,
  deployerAddress: string,
  { withPool = false }: { withPool?: boolean } = {},
): SimContracts {
  const known = NETWORK_CONTRACTS[network];
  const sbtcDeployer = known.sbtcRegistryContractId.split(".")[0];
  const own = (name: string) => `${deployerAddress}.${name}`;
  const tokens = [sip010Token("sim-token-alpha", "alpha", "ALPHA"), sip010Token("sim-token-beta", "beta", "BETA")];
  const collections = [sip009Collection("sim-nft-gamma", "gamma"), sip009Collection("sim-nft-delta", "delta")];
  const utils = utilityContract("sim-utils");
  const deploys: ContractSource[] = [...tokens, ...collections, utils];
  // On devnet the BNS-V2 and sBTC ids live under the deployer: the simulator deploys stand-ins for them.
  if (known.bnsContractId.startsWith(`${deployerAddress}.`)) deploys.push(bnsStandIn());
  if (sbtcDeployer === deployerAddress) deploys.push(...sbtcStandIns());
  const pool = sbtcStxPool("sim-pool-sbtc-stx", known.sbtcTokenContractId);
  if (withPool) deploys.push(pool);
  const fungibleTokens = tokens.map((t) => ({
    contractId: own(t.name),
    assetIdentifier: `${own(t.name)}::${t.abi.fungible_tokens[0].name}`,
  }));
  return {
    pox4: `${BOOT_ADDRESS[network]}.pox-4`,
    bns: known.bnsContractId,
    bnsAsset: `${known.bnsContractId}::BNS-V2`,
    sbtcRegistry: known.sbtcRegistryContractId,
    sbtcToken: known.sbtcTokenContractId,
    sbtcAsset: known.sbtcAssetIdentifier,
    sbtcLockedAsset: `${known.sbtcTokenContractId}::sbtc-token-locked`,
    sbtcDeposit: `${sbtcDeployer}.sbtc-deposit`,
    sbtcWithdrawal: `${sbtcDeployer}.sbtc-withdrawal`,
    sbtcBootstrapSigners: `${sbtcDeployer}.sbtc-bootstrap-signers`,
    utils: own(utils.name),
    pool: own(pool.name),
    fungibleTokens,
    transferableTokens: [
      ...fungibleTokens,
      { contractId: known.sbtcTokenContractId, assetIdentifier: known.sbtcAssetIdentifier },
    ],
    nftCollections: collections.map((c) => ({
      contractId: own(c.name),
      assetIdentifier: `${own(c.name)}::${c.abi.non_fungible_tokens[0].name}`,
    })),
    deploys,
  };
}
