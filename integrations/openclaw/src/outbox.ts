/**
 * Captures amem could not take (down, or silent past the timeout), kept on disk and sent again in
 * the order they were said: `<OpenClaw state dir>/plugins/amem/pending-captures.jsonl`, one request
 * a line. Bounded: past MAX_PENDING entries the oldest go, with one warning saying how many. A
 * request amem refuses outright (4xx: it would never be taken) is dropped, with a warning.
 * Sent again after a capture or a recall that reached amem, and at gateway start.
 */

import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const MAX_PENDING = 200;

export type Pending = {
  route: "/turns" | "/conversations";
  body: Record<string, unknown>;
  /** Who said it: the hook context fields that pick the amem agent (never the key itself). */
  ctx: { agentId?: string; sessionKey?: string; sessionId?: string; senderId?: string; channel?: string };
  queuedAt: string;
};

export type SendOutcome = "sent" | "unreachable" | "refused";

/** One drain at a time per file, across the plugin instances of one gateway process. */
const draining = new Map<string, Promise<unknown>>();

export class Outbox {
  constructor(readonly file: string) {}

  read(): Pending[] {
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file, "utf8")
      .split("\n")
      .filter(Boolean)
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Pending];
        } catch {
          return []; // a line cut by a crash mid-write: the rest still go
        }
      });
  }

  get size(): number {
    return this.read().length;
  }

  /** Keep one capture for later; the number of oldest ones dropped to stay within MAX_PENDING. */
  push(item: Pending): number {
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${JSON.stringify(item)}\n`);
    const all = this.read();
    if (all.length <= MAX_PENDING) return 0;
    this.write(all.slice(all.length - MAX_PENDING));
    return all.length - MAX_PENDING;
  }

  private write(items: Pending[]): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, items.map((i) => `${JSON.stringify(i)}\n`).join(""));
    renameSync(tmp, this.file); // atomic: a crash leaves the old file or the new one
  }

  /** Send what is kept, oldest first, until one cannot reach amem; what was sent leaves the file. */
  drain(send: (item: Pending) => Promise<SendOutcome>): Promise<{ sent: number; refused: number; left: number }> {
    const before = draining.get(this.file) ?? Promise.resolve();
    const run = before.then(async () => {
      let sent = 0;
      let refused = 0;
      for (;;) {
        const [first] = this.read();
        if (!first) break;
        const outcome = await send(first);
        if (outcome === "unreachable") break;
        if (outcome === "sent") sent++;
        else refused++;
        // Re-read: a capture kept meanwhile is appended after the one just sent.
        const rest = this.read();
        this.write(rest[0] && JSON.stringify(rest[0]) === JSON.stringify(first) ? rest.slice(1) : rest);
      }
      return { sent, refused, left: this.size };
    });
    draining.set(this.file, run.catch(() => undefined));
    return run;
  }
}
