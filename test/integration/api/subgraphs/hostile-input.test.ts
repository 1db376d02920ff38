/**
 * Hostile input to POST /api/subgraphs (SPEC.md "Write and management routes"; DESIGN.md §4 error
 * body): bodies nested thousands deep, YAML alias bombs, columns named after PostgreSQL system
 * columns, more tables, columns or unique-key columns than PostgreSQL takes, and names that would
 * share another subgraph's PostgreSQL schema. Each is a 4xx with a code, never a 5xx, and leaves
 * nothing behind. Runs on PGlite, and on PostgreSQL with SLUICE_TEST_DB=postgres.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { startTestService } from "../../../support/service.js";

const TOKEN = "tok_subgraphs-hostile";

interface Answer {
  status: number;
  body: { error: string; code: string; details?: Record<string, unknown> };
}

let testDb: TestDb;
let service: Service;

beforeAll(async () => {
  testDb = await createTestDb();
  service = await startTestService(testDb.db, { NETWORK: "devnet", INSTANCE_TOKEN: TOKEN });
});
afterAll(async () => {
  await service?.stop();
  await testDb?.drop();
});

async function send(path: string, body: string, contentType: string): Promise<Answer> {
  const res = await fetch(`${service.apiUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": contentType },
    body,
  });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

const deploy = (body: string, contentType = "application/yaml") => send("/api/subgraphs", body, contentType);

/** A valid spec named `name` whose one table has `columns` (YAML lines) and optional unique keys. */
function spec(name: string, columns: string[], uniqueKeys: string[][] = []): string {
  const keys = uniqueKeys.length
    ? `\n    uniqueKeys:\n${uniqueKeys.map((k) => `      - [${k.join(", ")}]`).join("\n")}`
    : "";
  return `name: ${name}
version: 1.0.0
description: hostile input
sources:
  xfer:
    type: stx_transfer
tables:
  moves:
    columns:
${columns.map((c) => `      ${c}`).join("\n")}${keys}
handlers:
  xfer:
    - insert: moves
      values:
        sender: \${event.sender}
`;
}

const textColumns = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);

async function deployedNames(): Promise<string[]> {
  const { rows } = await testDb.db.query<{ name: string }>("SELECT name FROM control.subgraphs ORDER BY name");
  return rows.map((r) => r.name);
}

/** The tables in the asset-holdings built-in's schema. */
async function builtInTables(): Promise<string[]> {
  const { rows } = await testDb.db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'sg_asset_holdings' ORDER BY 1",
  );
  return rows.map((r) => r.name);
}

function expectSpecInvalid(answer: Answer, message: RegExp): void {
  expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: "SPEC_INVALID" });
  const errors = (answer.body.details?.errors ?? []) as { message: string }[];
  expect(errors.map((e) => e.message)).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
}

describe("POST /api/subgraphs with hostile input", () => {
  it("a JSON body nested 10,000 deep is 400 BODY_TOO_DEEP (as on every JSON route)", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    for (const body of [deep, `{"name":"x","sources":${deep}}`]) {
      const answer = await deploy(body, "application/json");
      expect(answer).toEqual({
        status: 400,
        body: {
          error: "request body nests arrays and objects deeper than 64 levels",
          code: "BODY_TOO_DEEP",
          details: { maxDepth: 64 },
        },
      });
    }
    expect((await send("/api/webhooks", `{"name":${deep}}`, "application/json")).body.code).toBe("BODY_TOO_DEEP");
  });

  it("a YAML body nested 10,000 deep is 400 SPEC_INVALID", async () => {
    const answer = await deploy(`name: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`);
    expectSpecInvalid(answer, /^invalid YAML/);
  });

  it("a YAML alias bomb is 400 SPEC_INVALID", async () => {
    const levels = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (let i = 1; i <= 9; i++)
      levels.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(", ")}]`,
      );
    const answer = await deploy(`${spec("bomb", ["sender: { type: principal }"])}${levels.join("\n")}\n`);
    expectSpecInvalid(answer, /aliases expand to more than 100 nodes/);
  });

  it.each(["tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"])("a column named %s is 400 SPEC_INVALID", async (c) => {
    const answer = await deploy(spec(`sys-${c}`, ["sender: { type: principal }", `${c}: { type: text }`]));
    expectSpecInvalid(answer, new RegExp(`column name "${c}" is reserved \\(it is a PostgreSQL system column\\)`));
  });

  it("more columns, tables or unique-key columns than allowed are 400 SPEC_INVALID", async () => {
    const columns = [
      "sender: { type: principal }",
      ...textColumns(1600).map((c) => `${c}: { type: text, attributes: [nullable] }`),
    ];
    expectSpecInvalid(await deploy(spec("wide", columns)), /^tables\.moves\.columns has 1601 entries; at most 200/);

    const keyed = [
      "sender: { type: principal }",
      ...textColumns(40).map((c) => `${c}: { type: text, attributes: [nullable] }`),
    ];
    expectSpecInvalid(
      await deploy(spec("keyed", keyed, [textColumns(40)])),
      /^tables\.moves\.uniqueKeys\.0 has 40 entries; at most 32/,
    );

    const tables = Array.from({ length: 3000 }, (_, i) => `  t${i}:\n    columns: { a: { type: text } }`).join("\n");
    const many = spec("many", ["sender: { type: principal }"]).replace("tables:\n", `tables:\n${tables}\n`);
    expectSpecInvalid(await deploy(many), /^tables has 3001 entries; at most 100/);
  });

  it("names sharing another subgraph's PostgreSQL schema are 409 SUBGRAPH_EXISTS, and the other keeps its tables", async () => {
    const columns = ["sender: { type: principal }"];
    expect((await deploy(spec("my_moves", columns))).status).toBeLessThan(300);
    const before = await builtInTables();
    for (const [name, owner] of [
      ["my-moves", "my_moves"],
      ["asset_holdings", "asset-holdings"],
    ]) {
      const answer = await deploy(spec(name, columns));
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ code: "SUBGRAPH_EXISTS", details: { name, conflictsWith: owner } });
    }
    expect(await builtInTables()).toEqual(before);
  });

  it("none of the refused specs left anything behind", async () => {
    await service.subgraphs.idle();
    const names = await deployedNames();
    expect(names).toContain("my_moves");
    for (const refused of ["bomb", "wide", "keyed", "many", "my-moves", "asset_holdings", "sys-ctid"])
      expect(names).not.toContain(refused);
  });
});
