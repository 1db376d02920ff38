/**
 * control.archive_restore.restore_id: made once when a restore starts and kept with its state, so
 * every presign of a bundle of that restore carries the same idempotency key (restore id + file)
 * and a resumed or retried fetch is charged once by the archive's credits ledger.
 */
export const name = "archive-restore-id";
export const sql = `
ALTER TABLE control.archive_restore ADD COLUMN restore_id text;
UPDATE control.archive_restore SET restore_id = md5(random()::text || clock_timestamp()::text) WHERE restore_id IS NULL;
ALTER TABLE control.archive_restore ALTER COLUMN restore_id SET NOT NULL;
`;
