/** Types of test-databases.mjs (plain JavaScript so test/run.mjs can load it). */
export function newRunId(now?: number): string;
export function runDatabasePrefix(runId: string): string;
export function newDatabaseName(runId: string): string;
export function runStartedAt(name: string): number | null;
export function dropTestDatabases(adminUrl: string, shouldDrop: (name: string) => boolean): Promise<string[]>;
export function dropRunDatabases(adminUrl: string, runId: string): Promise<string[]>;
export function dropStaleDatabases(adminUrl: string, maxAgeMs: number, now?: number): Promise<string[]>;
