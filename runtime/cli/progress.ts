/** A one-line progress display for long CLI work: redraws in place on a terminal, else logs lines. */
export interface Progress {
  update(line: string): void;
  done(line: string): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, intervalMs?: number): Progress {
  const tty = Boolean(stream.isTTY);
  const every = intervalMs ?? (tty ? 250 : 5_000);
  let last = 0;
  return {
    update(line) {
      const now = Date.now();
      if (now - last < every) return;
      last = now;
      stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    },
    done(line) {
      stream.write(tty ? `\r\x1b[2K${line}\n` : `${line}\n`);
    },
  };
}

export function formatRate(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0);
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  const s = Math.round(seconds);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${s % 60}s`
      : `${s}s`;
}

/** `[########------------]  42%`: a fixed-width bar for a progress line (pure). */
export function progressBar(fraction: number, width = 20): string {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const filled = Math.round(f * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(Math.floor(f * 100)).padStart(3)}%`;
}
