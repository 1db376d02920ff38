/**
 * Shutdown registry: each resource registers its own close; closers run in reverse order of
 * registration (last opened, first closed), once.
 */
export interface Shutdown {
  add(name: string, close: () => Promise<void> | void): void;
  run(): Promise<void>;
  readonly isShuttingDown: boolean;
}

export function createShutdown(onError: (name: string, err: unknown) => void = () => {}): Shutdown {
  const closers: { name: string; close: () => Promise<void> | void }[] = [];
  let running: Promise<void> | null = null;
  return {
    add(name, close) {
      closers.push({ name, close });
    },
    get isShuttingDown() {
      return running !== null;
    },
    run() {
      running ??= (async () => {
        for (const { name, close } of closers.reverse()) {
          try {
            await close();
          } catch (err) {
            onError(name, err);
          }
        }
      })();
      return running;
    },
  };
}
