/**
 * Final-state checks the agent cannot bend. The agent had the run of its sandbox: it could leave
 * processes behind, make its folder read-only so a check's probe cannot write (`chmod 555 /work`),
 * or make a file unreadable. So the checks never run where the agent was:
 *
 1. the agent's work folder is archived, read as the agent's own user (what it made unreadable
 *    is left out: a cheat only loses);
 * 2. a fresh sandbox (same backend, limits and network; as root, a new user id; no process may
 *    trace another, write its memory or wall itself off with a filter of its own: `guardChecker`)
 *    receives the archive with every file and folder made readable and writable by its user again;
 * 3. each check runs there, with the submitted answer as $SUBMITTED, HOME=/tmp (the agent's
 *    dot files in /work — a .pth under .local that python3 runs at start, a .gitconfig — stay inert
 *    unless the check reads them from /work) and PYTHONSAFEPATH=1 (a json.py in /work does not
 *    replace the standard library's in a `python3 -c` check). No process of the agent's
 *    runs in it (bubblewrap commands die with their own pid namespace anyway; a container's
 *    leftovers stay in the agent's container), and what they do to the agent's copy is not seen.
 *
 * What a check tests is the task's business: test behaviour with several inputs, some drawn at
 * check time, rather than one fixed probe an agent can special-case; and look for evidence the
 * agent's code cannot take back. The code a check runs has the check's own user, so it can delete
 * any file its probe made: examples/ctf's command-injection draws names and payloads at check
 * time, and a payload that runs signals the check's shell instead of leaving a file (its README).
 */
import { isRubricateError, RubricateError } from "../errors.js";
import { renderTemplate } from "../text/template.js";
import type { Sandbox, SandboxOptions } from "../sandbox/types.js";
import type { Rubric } from "../rubric/schema.js";
import type { ScoreResult } from "../types.js";
import type { StateProbe } from "./schema.js";

/** A check's HOME: the checker's fresh /tmp, which nothing of the agent's reaches (only /work is copied). */
const CHECK_HOME = "/tmp";
/**
 * The environment of every check. PYTHONSAFEPATH (Python 3.11+): `python3 -c` and scripts do not
 * put the working folder, the agent's /work, first on the import path, where a json.py the agent
 * left would replace the standard library's inside the check. A check that imports the agent's
 * own modules appends /work to `sys.path` (after the standard library; PYTHONPATH would put it before).
 */
const checkEnv = (submitted: string | undefined) => ({ SUBMITTED: submitted ?? "", HOME: CHECK_HOME, PYTHONSAFEPATH: "1" });

export interface FinalStateOptions {
  /** The agent's sandbox (left as it is; the episode's close destroys it). */
  agent: Sandbox;
  /**
   * Opens a fresh sandbox like the agent's (the checker's), with `options` added: `guardChecker`, so
   * the code a check runs can neither reach the check nor wall itself off from it.
   */
  open: (options: CheckerOptions) => Promise<Sandbox>;
  checks: Record<string, StateProbe>;
  inputs: Record<string, unknown>;
  submitted: string | undefined;
  signal: AbortSignal;
}

/** What the checker's sandbox adds to the agent's options. */
export type CheckerOptions = Required<Pick<SandboxOptions, "guardChecker">>;
/**
 * The code a check runs shares the check's user and pid namespace: it could attach to the check's
 * shell with ptrace and swallow the signal a probe sends (examples/ctf's command-injection),
 * rewrite the check's memory, or run the probe under a seccomp filter or Landlock domain of its
 * own that lets no signal out. The checker denies all of it (SandboxOptions.guardChecker);
 * bubblewrap that cannot apply it refuses to open, so no check runs unguarded there.
 */
const CHECKER: CheckerOptions = { guardChecker: true };

/** Runs the final-state checks on a fresh copy of the agent's work folder; returns the sample fields they give. */
export async function runFinalStateChecks(o: FinalStateOptions): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  if (Object.keys(o.checks).length === 0) return fields;
  let archive: Buffer;
  try {
    archive = await o.agent.exportWork();
  } catch (e) {
    // A folder past the archive limit is the agent's doing: 340,000 empty files with 250-character
    // names take no disk but 70 MB as an archive. As an error the rollout would have no reward,
    // which spares a failing agent its 0; it is the agent's forfeit instead (`forfeitResult`).
    if (isRubricateError(e, "SANDBOX") && (e as { tooLarge?: unknown }).tooLarge === true) throw Object.assign(new RubricateError("SANDBOX", `the final-state checks cannot run: ${e.message}`, { cause: e }), { forfeit: true });
    throw e;
  }
  o.signal.throwIfAborted();
  const checker = await o.open(CHECKER);
  try {
    await checker.importWork(archive);
    for (const [name, check] of Object.entries(o.checks)) {
      o.signal.throwIfAborted();
      if ("run" in check) {
        // The submitted answer reaches the check as a variable, never spliced into its text (no injection).
        // HOME is the checker's own empty /tmp, not the agent's /work: dot files left there
        // (.local/…/site-packages/*.pth run by every python3, .gitconfig's hooks, .sqliterc) would run inside the check.
        const r = await checker.exec(renderTemplate(check.run, o.inputs), { signal: o.signal, env: checkEnv(o.submitted), ...(check.timeout_ms ? { timeoutMs: check.timeout_ms } : {}) });
        // A check a limit ended did not finish, so nothing it printed is its answer: a check that
        // printed PASS for its first case and then hung on the agent's FIFO or code kept that PASS.
        fields[name] = r.limit === undefined ? r.stdout.trim() : "";
        fields[`${name}_exit_code`] = r.exitCode ?? -1;
      } else {
        fields[name] = await checker
          .readFile(renderTemplate(check.file, o.inputs))
          .then((b) => b.toString("utf8").trim())
          .catch(() => "");
      }
    }
  } finally {
    await checker.destroy();
  }
  return fields;
}

/** True for the error of final-state checks the agent made impossible (its work folder is too large to archive). */
export function isFinalStateForfeit(e: unknown): e is RubricateError {
  return isRubricateError(e, "SANDBOX") && (e as { forfeit?: unknown }).forfeit === true;
}

/**
 * The score of an episode whose final-state checks the agent made impossible: reward 0, the least
 * any response earns (every positive criterion unmet, every pitfall hit), never a missing reward.
 */
export function forfeitResult(rubric: Rubric, error: RubricateError): ScoreResult {
  return { reward: 0, ...(rubric.scoring.pass_threshold !== undefined ? { passed: false } : {}), verdicts: [], errors: [], feedback: `reward 0: ${error.message}` };
}
