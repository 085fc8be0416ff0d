/**
 * Whose time an episode spends: the agent's own actions (its tool calls, the final-state checks
 * on what it left) or the harness's (model calls, hooks, starting sandboxes and the REPL). A
 * rollout's time limit that fires during the agent's action is the agent's forfeit, scored 0: as
 * an error (no reward, which trainers drop and evals leave out) a failing agent could stall into
 * it, `sleep 1000` in every command, and escape the 0 it earned. A limit that fires during the
 * harness's work stays an error, which `--resume` runs again.
 */
export class EpisodePhase {
  /** The agent's actions running, innermost last (one at a time in practice: tools run in turn). */
  private readonly actions: string[] = [];
  /** Harness work running, nested in an action or not. */
  private harnessWork = 0;

  /** Runs one of the agent's own actions, named for the record ("the bash tool call"). */
  async agent<T>(action: string, fn: () => Promise<T>): Promise<T> {
    this.actions.push(action);
    try {
      return await fn();
    } finally {
      this.actions.splice(this.actions.lastIndexOf(action), 1);
    }
  }

  /**
   * Runs the harness's work, also when an action of the agent started it (`llm_query` from its
   * Python cell, `ctx.llm` in a tool's handler, the checker's sandbox): a model that hangs is not
   * the agent's stalling.
   */
  async harness<T>(fn: () => Promise<T>): Promise<T> {
    this.harnessWork++;
    try {
      return await fn();
    } finally {
      this.harnessWork--;
    }
  }

  /** The agent's action running now, or undefined when the harness's work runs (or nothing does). */
  agentAction(): string | undefined {
    return this.harnessWork === 0 ? this.actions.at(-1) : undefined;
  }
}
