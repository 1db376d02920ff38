/**
 * The embedded database starts with the configured shared_buffers (runtime/db/pglite-settings.ts).
 * The databases start from the migrated test snapshot: shared_buffers is a start parameter, applied
 * at every start alike, so initdb (seconds per database) would add nothing to what is checked.
 */
import { describe, expect, it } from "vitest";
import { createPgliteDb } from "../../../runtime/db/pglite.js";
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from "../../../runtime/db/pglite-settings.js";
import { migratedPgliteSnapshot } from "../../support/pglite-snapshot.js";

const sharedBuffers = async (options?: { sharedBuffersMb?: number }) => {
  const db = await createPgliteDb(undefined, await migratedPgliteSnapshot(), options);
  try {
    const { rows } = await db.query<{ shared_buffers: string }>("SHOW shared_buffers");
    return rows[0].shared_buffers;
  } finally {
    await db.close();
  }
};

describe("PGlite memory settings", () => {
  it("shared_buffers is the default, or the size asked for", async () => {
    expect(await sharedBuffers()).toBe(`${DEFAULT_PGLITE_SHARED_BUFFERS_MB}MB`);
    expect(await sharedBuffers({ sharedBuffersMb: 24 })).toBe("24MB");
  });
});
