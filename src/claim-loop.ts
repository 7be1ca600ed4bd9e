// The loop of a worker that claims its work from the database (the run
// engine's runs, the webhook worker's deliveries): it claims as much as it has
// room for and starts each item; when nothing more is due (a claim took less
// than it asked) or it has no room left, it waits until woken (an item ended,
// or work was added) or until the poll interval has passed.

export interface ClaimLoopOptions<Item> {
  /** How many more items the worker may hold now. */
  room(): number;
  /** Claims up to `room` items. A failure is reported and the loop goes on at its next turn. */
  claim(room: number): Promise<Item[]>;
  /** Starts one claimed item; not awaited. */
  start(item: Item): void;
  failed(error: unknown): void;
  pollMs: number;
}

export class ClaimLoop<Item> {
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;

  constructor(private readonly options: ClaimLoopOptions<Item>) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Looks for work at once. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Stops claiming; resolves when the loop has ended (the items it started go on). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
  }

  private async run() {
    const { options } = this;
    while (this.running) {
      const room = options.room();
      let items: Item[] = [];
      if (room > 0) {
        try {
          items = await options.claim(room);
        } catch (error) {
          options.failed(error);
        }
      }
      for (const item of items) options.start(item);
      if (items.length < room || options.room() <= 0) {
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          setTimeout(resolve, options.pollMs).unref();
        });
        this.wakeUp = null;
      }
    }
  }
}
