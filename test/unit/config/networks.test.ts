/**
 * The per-network contract table (runtime/config/networks.ts): every principal decodes as a c32check
 * address (checked by @stacks/transactions, not by our code) with the version byte of its network,
 * and the public-network ids are the deployments published by their maintainers.
 */
import { AddressVersion, createAddress } from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import { NETWORK_CONTRACTS, NETWORKS, type Network } from "../../../runtime/config/networks.js";

/** Single-sig and multi-sig version bytes per network (SIP-005; devnet uses the testnet ones). */
const VERSIONS: Record<Network, readonly number[]> = {
  mainnet: [AddressVersion.MainnetSingleSig, AddressVersion.MainnetMultiSig],
  testnet: [AddressVersion.TestnetSingleSig, AddressVersion.TestnetMultiSig],
  devnet: [AddressVersion.TestnetSingleSig, AddressVersion.TestnetMultiSig],
};

/** `ADDR.name` or `ADDR.name::asset` → its parts. */
function splitPrincipal(value: string): { address: string; contractName: string; asset: string | null } {
  const [contract, asset = null] = value.split("::");
  const [address, contractName] = contract.split(".");
  return { address, contractName, asset };
}

describe("NETWORK_CONTRACTS", () => {
  it("covers every network with the same keys", () => {
    expect(Object.keys(NETWORK_CONTRACTS).sort()).toEqual([...NETWORKS].sort());
    const keys = Object.keys(NETWORK_CONTRACTS.mainnet).sort();
    for (const network of NETWORKS) expect(Object.keys(NETWORK_CONTRACTS[network]).sort(), network).toEqual(keys);
  });

  for (const network of NETWORKS) {
    it(`${network}: every principal has a valid c32 checksum and a ${network} version byte`, () => {
      for (const [key, value] of Object.entries(NETWORK_CONTRACTS[network])) {
        const { address, contractName } = splitPrincipal(value);
        expect(contractName, `${network}.${key}`).toMatch(/^[a-zA-Z][a-zA-Z0-9_-]{0,127}$/);
        let version: number | undefined;
        expect(() => {
          version = createAddress(address).version;
        }, `${network}.${key} = ${value}`).not.toThrow();
        expect(VERSIONS[network], `${network}.${key} = ${value} has version ${version}`).toContain(version);
      }
    });

    it(`${network}: the sBTC asset is the token's sbtc-token, registry and token share one deployer`, () => {
      const c = NETWORK_CONTRACTS[network];
      expect(c.sbtcAssetIdentifier).toBe(`${c.sbtcTokenContractId}::sbtc-token`);
      expect(splitPrincipal(c.sbtcRegistryContractId)).toMatchObject({ contractName: "sbtc-registry" });
      expect(splitPrincipal(c.sbtcTokenContractId)).toMatchObject({ contractName: "sbtc-token" });
      expect(splitPrincipal(c.sbtcRegistryContractId).address).toBe(splitPrincipal(c.sbtcTokenContractId).address);
      expect(splitPrincipal(c.bnsContractId).contractName).toBe("BNS-V2");
    });
  }

  it("mainnet and testnet name the public deployments", () => {
    // BNS-V2: Trust-Machines' bns-v2 SDK and Leather's network tables. sBTC: docs.stacks.co's sBTC
    // pages, Clarinet's and the Hiro explorer's network tables (the protocol deployment with its
    // registry, on testnet under a multisig deployer).
    const published = (network: "mainnet" | "testnet") => ({
      bnsContractId: NETWORK_CONTRACTS[network].bnsContractId,
      sbtcRegistryContractId: NETWORK_CONTRACTS[network].sbtcRegistryContractId,
    });
    expect({ mainnet: published("mainnet"), testnet: published("testnet") }).toEqual({
      mainnet: {
        bnsContractId: "SP2QEZ06AGJ3RKJPBV14SY1V5BBFNAW33D96YPGZF.BNS-V2",
        sbtcRegistryContractId: "SM3VDXK3WZZSA84XXFKAFAF15NNZX32CTSG82JFQ4.sbtc-registry",
      },
      testnet: {
        bnsContractId: "ST2QEZ06AGJ3RKJPBV14SY1V5BBFNAW33D9SZJQ0M.BNS-V2",
        sbtcRegistryContractId: "SN3VMHXEN64ZZF71JQ5VESXDWTR301XTTXGF4J8F1.sbtc-registry",
      },
    });
  });
});
