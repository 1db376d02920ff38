/**
 * Live subgraph documents and tips (runtime/api/subgraphs/documents.ts, subgraphs/catalog.ts
 * buildTip): the instance's own base URL, live rowCount and sortable, servers[0].url. Pure.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${config.X} in plain strings
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { subgraph as assetHoldings } from "../../../../generated/asset-holdings/routes.js";
import { subgraph as sbtcFlows } from "../../../../generated/sbtc-flows/routes.js";
import { buildTip } from "../../../../runtime/api/subgraphs/catalog.js";
import { instanceBaseUrl, liveDescriptor, liveOpenApi } from "../../../../runtime/api/subgraphs/documents.js";
import { NETWORK_CONTRACTS } from "../../../../runtime/config/networks.js";

const loopback = { publishedOnLoopback: true, apiPublishAddr: { host: "127.0.0.1", port: 3800 } };
const published = { publishedOnLoopback: false, apiPublishAddr: { host: "api.example.org", port: 443 } };

describe("instanceBaseUrl", () => {
  it("on loopback: the request's Host when it is a plain host[:port]", () => {
    expect(instanceBaseUrl("127.0.0.1:41234", loopback)).toBe("http://127.0.0.1:41234");
    expect(instanceBaseUrl("localhost:8080", loopback)).toBe("http://localhost:8080");
    expect(instanceBaseUrl("[::1]:3800", loopback)).toBe("http://[::1]:3800");
  });
  it("falls back to API_PUBLISH_ADDR for a missing or odd Host, and always past loopback", () => {
    expect(instanceBaseUrl(undefined, loopback)).toBe("http://127.0.0.1:3800");
    expect(instanceBaseUrl("evil.com/<script>", loopback)).toBe("http://127.0.0.1:3800");
    expect(instanceBaseUrl("a b", loopback)).toBe("http://127.0.0.1:3800");
    expect(instanceBaseUrl("127.0.0.1:9999", published)).toBe("http://api.example.org:443");
    expect(instanceBaseUrl(undefined, { publishedOnLoopback: false, apiPublishAddr: { host: "::1", port: 1 } })).toBe(
      "http://[::1]:1",
    );
  });
});

describe("live documents", () => {
  const descriptor = JSON.parse(readFileSync("generated/asset-holdings/descriptor.json", "utf8"));
  const openapi = JSON.parse(readFileSync("generated/asset-holdings/openapi.json", "utf8"));
  const instance = { serverUrl: "http://127.0.0.1:5555", contracts: NETWORK_CONTRACTS.devnet };

  it("descriptor: serverUrl, live rowCount, served sortable; the generated-file comment dropped; input untouched", () => {
    type Doc = {
      serverUrl: string;
      $comment?: string;
      tables: Record<string, { rowCount: number; query: { sortable: string[] } }>;
    };
    const live = liveDescriptor(descriptor, assetHoldings, instance, {
      holdings: 1234,
    }) as unknown as Doc;
    expect(live.serverUrl).toBe("http://127.0.0.1:5555");
    expect(live.tables.holdings.rowCount).toBe(1234);
    expect(live.tables.holdings.query.sortable).toEqual(assetHoldings.tables.holdings.sortable);
    expect(live.$comment).toBeUndefined();
    expect(descriptor.tables.holdings.rowCount).toBe(0);
    expect(Object.keys(live)).toEqual(
      expect.arrayContaining(["name", "version", "schemaHash", "generatedAt", "sources", "tables"]),
    );
  });

  it("openapi: this instance as the only server", () => {
    const live = liveOpenApi(openapi, assetHoldings, instance) as Record<string, unknown>;
    expect(live.servers).toEqual([{ url: "http://127.0.0.1:5555", description: "This instance." }]);
    expect(live.openapi).toBe("3.1.0");
    expect(live["x-subgraph-name"]).toBe("asset-holdings");
  });
});

describe("servedSources", () => {
  it("resolves ${config.X} with the instance's contract ids and leaves the module and the generated file as they are", () => {
    const generated = readFileSync("generated/sbtc-flows/descriptor.json", "utf8");
    const doc = JSON.parse(generated);
    for (const network of ["mainnet", "testnet", "devnet"] as const) {
      const contracts = NETWORK_CONTRACTS[network];
      const live = liveDescriptor(doc, sbtcFlows, { serverUrl: "http://x:1", contracts }, {});
      const openapi = liveOpenApi(doc, sbtcFlows, { serverUrl: "http://x:1", contracts });
      // Expected: the generated file's sources with each placeholder replaced by the table's value.
      const expected = JSON.parse(
        JSON.stringify(doc.sources).replace(
          /\$\{config\.(\w+)\}/g,
          (_m, key: keyof typeof contracts) => contracts[key],
        ),
      );
      expect(live.sources).toEqual(expected);
      expect(openapi["x-subgraph-sources"]).toEqual(expected);
      expect(JSON.stringify(live)).not.toContain("${");
    }
    expect(readFileSync("generated/sbtc-flows/descriptor.json", "utf8")).toBe(generated);
    expect(JSON.stringify(doc.sources)).toContain("${config.sbtcRegistryContractId}");
    expect(sbtcFlows.sources.registry.filter.contractId).toBe("${config.sbtcRegistryContractId}");
  });
});

describe("buildTip", () => {
  it("blocks_behind never negative; an empty chain is all zeros; an unrecorded subgraph is at the tip", () => {
    expect(buildTip(100, 95)).toEqual({ block_height: 100, subgraph_height: 95, blocks_behind: 5 });
    expect(buildTip(100, 101)).toEqual({ block_height: 100, subgraph_height: 101, blocks_behind: 0 });
    expect(buildTip(null, null)).toEqual({ block_height: 0, subgraph_height: 0, blocks_behind: 0 });
    expect(buildTip(7, null)).toEqual({ block_height: 7, subgraph_height: 7, blocks_behind: 0 });
    expect(buildTip(7, -1)).toEqual({ block_height: 7, subgraph_height: -1, blocks_behind: 8 });
  });
});
