/**
 * Evals the hub queues on its operator's models (the Evaluate button, `POST /api/evals`): the
 * interface the web app calls. The runner never receives the visitor's token.
 */

/** What a visitor asked for: one published version on some of the operator's models. */
export interface EvalRequest {
  env: string;
  version: string;
  /** The registry's tarball hash of that version, stamped on the results. */
  integrity?: string;
  /** Names from the operator's models file. */
  models: string[];
  /** The registry that publishes it. */
  registry: string;
  /** The registry's name for the visitor who asked (for the log). */
  user: string;
}

/** Where a queued eval is. */
export interface EvalProgress {
  id: string;
  env: string;
  version: string;
  models: string[];
  state: "queued" | "running" | "done" | "failed";
  /** Rollouts finished out of all of them. */
  done: number;
  total: number;
  error?: string;
}

export interface EvalRunner {
  /** The model names visitors may choose. */
  readonly models: string[];
  /**
   * Why this request must wait (an eval of the same version is already under way), or undefined.
   * One at a time per version: a visitor cannot queue the same paid work over and over.
   */
  busy(request: Pick<EvalRequest, "env" | "version">): string | undefined;
  /** Queues the eval; resolves with its id at once (the work goes on after). */
  start(request: EvalRequest): Promise<string>;
  progress(id: string): EvalProgress | undefined;
}
