/** The embedded database starts with the configured shared_buffers (runtime/db/pglite-settings.ts). */
import { describe, expect, it } from "vitest";
import { createPgliteDb } from "../../../runtime/db/pglite.js";
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from "../../../runtime/db/pglite-settings.js";

const sharedBuffers = async (options?: { sharedBuffersMb?: number }) => {
  const db = await createPgliteDb(undefined, undefined, options);
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
