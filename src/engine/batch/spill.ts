import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { BatchItem, CompletionRequest } from "../../providers/types.js";

/**
 * The requests a scoring pass deferred, written to temporary JSONL files of at most `maxItems`
 * lines each, so a 100,000-request batch costs a set of keys in memory, not the prompts.
 */
export class DeferredSpill {
  private readonly dir = mkdtempSync(join(tmpdir(), "rubricate-deferred-"));
  private readonly keys = new Set<string>();
  private readonly files: { path: string; count: number }[] = [];
  private fd: number | undefined;

  constructor(private readonly maxItems: number) {}

  get size(): number {
    return this.keys.size;
  }

  /** Records a deferred call once per key (synchronous: the engine's defer hook is). */
  add(key: string, request: CompletionRequest): void {
    if (this.keys.has(key)) return;
    this.keys.add(key);
    let current = this.files.at(-1);
    if (!current || current.count >= this.maxItems || this.fd === undefined) {
      if (this.fd !== undefined) closeSync(this.fd);
      current = { path: join(this.dir, `chunk-${this.files.length}.jsonl`), count: 0 };
      this.files.push(current);
      this.fd = openSync(current.path, "w");
    }
    writeSync(this.fd, `${JSON.stringify({ customId: key, request })}\n`);
    current.count++;
  }

  /** The chunks, each readable as a stream of batch items. */
  chunks(): { count: number; keys: () => Promise<string[]>; items: () => AsyncGenerator<BatchItem> }[] {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    return this.files.map(({ path, count }) => {
      const items = async function* (): AsyncGenerator<BatchItem> {
        for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) if (line) yield JSON.parse(line) as BatchItem;
      };
      const keys = async () => {
        const out: string[] = [];
        for await (const item of items()) out.push(item.customId);
        return out;
      };
      return { count, items, keys };
    });
  }

  /** Deletes the temporary files. */
  dispose(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
