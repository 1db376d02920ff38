/**
 * The served subgraph documents show the instance's network (runtime/api/subgraphs/documents.ts
 * servedSources): `GET /v1/subgraphs/:name`, its descriptor.json and openapi.json carry the
 * network's real contract ids where the spec says `${config.X}`, for built-ins (from generated/)
 * and deployed subgraphs (from their stored spec) alike, and no document holds a `${`. Expected
 * sources are read from the spec YAML here, with the network table substituted by plain string
 * replacement. Runs on PGlite, and on PostgreSQL with SLUICE_TEST_DB=postgres.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${config.X} in plain strings
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SPECS_DIR } from "../../../../generator/repo-paths.js";
import { NETWORK_CONTRACTS, type Network } from "../../../../runtime/config/networks.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { startTestService } from "../../../support/service.js";

const DEPLOYED_SPEC = `name: sbtc-mints
version: 1.0.0
description: sBTC mints, found through the network's sBTC asset.
sources:
  mints:
    type: ft_mint
    assetIdentifier: \${config.sbtcAssetIdentifier}
tables:
  mints:
    columns:
      recipient: { type: principal }
handlers:
  mints:
    - insert: mints
      values:
        recipient: \${event.recipient}
`;

type Json = Record<string, unknown>;

/** The spec's sources as documents show them, `${config.X}` replaced from the network table. */
function expectedSources(specText: string, network: Network): Json {
  const contracts: Record<string, string> = { ...NETWORK_CONTRACTS[network] };
  const spec = parse(specText) as { sources: Record<string, Record<string, unknown>> };
  return Object.fromEntries(
    Object.entries(spec.sources).map(([name, fields]) => [
      name,
      Object.fromEntries(
        Object.entries(fields).map(([field, value]) => [
          field,
          String(value).replace(/\$\{config\.(\w+)\}/g, (_m, key: string) => contracts[key]),
        ]),
      ),
    ]),
  );
}

const specText = (name: string) => readFileSync(join(SPECS_DIR, `${name}.yaml`), "utf8");

let testDb: TestDb;
beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  await testDb?.drop();
});

describe.each(["devnet", "mainnet"] as const)("served documents on %s", (network) => {
  it("show the network's contract ids in sources, and no ${ anywhere", async () => {
    await testDb.reset();
    const service = await startTestService(testDb.db, { NETWORK: network });
    try {
      await service.subgraphs.deploy(DEPLOYED_SPEC, "yaml");
      await service.subgraphs.idle();
      const subgraphs: [string, string][] = [
        ["bns-names", specText("bns-names")],
        ["sbtc-flows", specText("sbtc-flows")],
        ["sbtc-mints", DEPLOYED_SPEC],
      ];
      for (const [name, text] of subgraphs) {
        const sources = expectedSources(text, network);
        expect(JSON.stringify(sources)).not.toContain("${");
        const read = async (suffix: string) => {
          const res = await fetch(`${service.apiUrl}/v1/subgraphs/${name}${suffix}`);
          const body = await res.text();
          expect({ suffix, status: res.status }).toEqual({ suffix, status: 200 });
          expect(body, `${name}${suffix}`).not.toContain("${");
          return JSON.parse(body) as Json;
        };
        expect((await read("")).sources, name).toEqual(sources);
        expect((await read("/descriptor.json")).sources, name).toEqual(sources);
        expect((await read("/openapi.json"))["x-subgraph-sources"], name).toEqual(sources);
      }
      const list = await (await fetch(`${service.apiUrl}/v1/subgraphs`)).text();
      expect(list).not.toContain("${");
    } finally {
      await service.stop();
    }
  });
});
