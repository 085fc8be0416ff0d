import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { removeScratchOfThisProcess, scratchDir } from "../../config/scratch.js";
import type { BatchApi, BatchFile, CompletionRequest } from "../../providers/types.js";
import { estimateTokens } from "../usage.js";
import { KeySet } from "./key-set.js";

/** The scratch folders of spills (config/scratch.ts): `rubricate-deferred-<pid>-…`. */
const SPILL = "deferred";

/**
 * Removes the spill folders this process's runs left behind. Only after a run that died (a batch
 * worker out of memory, which runs no cleanup): a live run's folder would go with them. Those of a
 * killed process go when the next spill is made.
 */
export function removeSpillsOfThisProcess(): void {
  removeScratchOfThisProcess(SPILL);
}

/** One batch's worth of deferred requests, on disk in the provider's format. */
export interface SpillChunk extends BatchFile {
  /** The custom_ids (cache keys) of its requests, in order. */
  keys(): string[];
  /** Random, one per chunk: the job that sends it records it, and its requests carry it where the provider keeps no metadata. */
  nonce: string;
}

/** A job nonce: 12 base64url characters (72 random bits). */
const newNonce = () => randomBytes(9).toString("base64url");

/**
 * The requests a scoring pass deferred, written straight into batch files in the provider's own
 * format, each cut under the provider's request count and byte limits. What stays in memory is a
 * fingerprint per key (16 bytes), never a prompt.
 */
export class DeferredSpill {
  private readonly dir = scratchDir(SPILL);
  private readonly seen = new KeySet();
  private readonly files: (SpillChunk & { keysPath: string })[] = [];
  private fd: number | undefined;
  private keysFd: number | undefined;
  private readonly headBytes: number;
  private readonly separatorBytes: number;
  private readonly tailBytes: number;
  /** The nonce the next chunk takes. */
  private nextNonce = newNonce();
  /** Rough input+output tokens of everything deferred (for the live-price warning). */
  estimatedTokens = 0;

  constructor(
    private readonly api: Pick<BatchApi, "encode" | "framing">,
    private readonly limits: { maxItems: number; maxBytes: number },
  ) {
    this.headBytes = Buffer.byteLength(api.framing.head);
    this.separatorBytes = Buffer.byteLength(api.framing.separator);
    this.tailBytes = Buffer.byteLength(api.framing.tail);
  }

  /** Requests written to batch files. */
  get size(): number {
    return this.files.reduce((n, f) => n + f.count, 0);
  }

  /** Requests too large for any batch (one request over the byte limit): left to the live pass. */
  tooLarge = 0;

  /** Records a deferred call once per key (synchronous: the engine's defer hook is). */
  add(key: string, request: CompletionRequest): void {
    if (!this.seen.add(key)) return;
    let current = this.files.at(-1);
    const open = current !== undefined && this.fd !== undefined;
    // A nonce is always 12 characters, so the line's length does not depend on which chunk takes it.
    let line = this.api.encode({ customId: key, request, nonce: open ? current!.nonce : this.nextNonce });
    const bytes = Buffer.byteLength(line);
    const fits = open && current!.count < this.limits.maxItems && current!.bytes + this.separatorBytes + bytes + this.tailBytes <= this.limits.maxBytes;
    if (!fits) {
      if (this.headBytes + bytes + this.tailBytes > this.limits.maxBytes) {
        this.tooLarge++;
        return;
      }
      this.closeCurrent();
      const n = this.files.length;
      const nonce = this.nextNonce;
      this.nextNonce = newNonce();
      if (open) line = this.api.encode({ customId: key, request, nonce });
      current = { path: join(this.dir, `chunk-${n}.batch`), keysPath: join(this.dir, `chunk-${n}.keys`), count: 0, bytes: this.headBytes, keys: () => [], nonce };
      const keysPath = current.keysPath;
      current.keys = () => readFileSync(keysPath, "utf8").split("\n").filter(Boolean);
      this.files.push(current);
      this.fd = openSync(current.path, "w");
      this.keysFd = openSync(current.keysPath, "w");
      writeSync(this.fd, this.api.framing.head);
    } else {
      writeSync(this.fd!, this.api.framing.separator);
      current!.bytes += this.separatorBytes;
    }
    writeSync(this.fd!, line);
    writeSync(this.keysFd!, `${key}\n`);
    current!.bytes += bytes;
    current!.count++;
    this.estimatedTokens += estimateTokens(request);
  }

  /** The finished batch files, each under the limits. */
  chunks(): SpillChunk[] {
    this.closeCurrent();
    return this.files;
  }

  private closeCurrent(): void {
    if (this.fd !== undefined) {
      writeSync(this.fd, this.api.framing.tail);
      this.files.at(-1)!.bytes += this.tailBytes;
      closeSync(this.fd);
    }
    if (this.keysFd !== undefined) closeSync(this.keysFd);
    this.fd = undefined;
    this.keysFd = undefined;
  }

  /** Deletes the temporary files. */
  dispose(): void {
    this.closeCurrent();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
