/**
 * Whose time an episode spends: the agent's own actions (its tool calls, the final-state checks
 * on what it left) or the harness's (model calls, hooks, starting sandboxes and the REPL). A
 * rollout's time limit that fires during the agent's action is the agent's forfeit, scored 0: as
 * an error (no reward, which trainers drop and evals leave out) a failing agent could stall into
 * it, `sleep 1000` in every command, and escape the 0 it earned. So is a limit that fires between
 * its actions when they took most of the time: many shorter stalls, the limit landing in the
 * policy's call. A limit that fires during the harness's work otherwise stays an error, which
 * `--resume` runs again.
 */
export class EpisodePhase {
  /** The agent's actions running, innermost last (one at a time in practice: tools run in turn). */
  private readonly actions: string[] = [];
  /** Harness work running, nested in an action or not. */
  private harnessWork = 0;
  /** The agent's own time before `since`, and when the agent's time now running began. */
  private agentMs = 0;
  private since: number | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Runs one of the agent's own actions, named for the record ("the bash tool call"). */
  async agent<T>(action: string, fn: () => Promise<T>): Promise<T> {
    this.change(() => this.actions.push(action));
    try {
      return await fn();
    } finally {
      this.change(() => this.actions.splice(this.actions.lastIndexOf(action), 1));
    }
  }

  /**
   * Runs the harness's work, also when an action of the agent started it (`llm_query` from its
   * Python cell, `ctx.llm` in a tool's handler, the checker's sandbox): a model that hangs is not
   * the agent's stalling.
   */
  async harness<T>(fn: () => Promise<T>): Promise<T> {
    this.change(() => this.harnessWork++);
    try {
      return await fn();
    } finally {
      this.change(() => this.harnessWork--);
    }
  }

  /** The agent's action running now, or undefined when the harness's work runs (or nothing does). */
  agentAction(): string | undefined {
    return this.harnessWork === 0 ? this.actions.at(-1) : undefined;
  }

  /** Milliseconds the agent's own actions have taken so far (harness work inside them not counted). */
  agentTimeMs(): number {
    return this.agentMs + (this.since === undefined ? 0 : this.now() - this.since);
  }

  /** Applies a change of what runs, closing or opening a stretch of the agent's own time. */
  private change(apply: () => void): void {
    const wasAgent = this.agentAction() !== undefined;
    apply();
    const isAgent = this.agentAction() !== undefined;
    if (wasAgent === isAgent) return;
    const at = this.now();
    if (wasAgent) {
      this.agentMs += at - this.since!;
      this.since = undefined;
    } else this.since = at;
  }
}

/**
 * What a rollout's time limit ended, when that was the agent's doing: its action running then, or
 * its own actions when they took at least half of the limit. Undefined when the harness's time
 * (model calls, hooks) made the rollout late.
 */
export function stallOf(phase: Pick<EpisodePhase, "agentAction" | "agentTimeMs">, limitMs: number): string | undefined {
  const action = phase.agentAction();
  if (action !== undefined) return `${action}, the agent's own action`;
  const own = phase.agentTimeMs();
  return own * 2 >= limitMs ? `the agent's own actions, which took ${Math.round(own)} ms of it` : undefined;
}
