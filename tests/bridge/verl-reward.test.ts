/**
 * examples/trainers/verl_reward.py's `on_error`: the score of a rollout the judge could not score.
 * verl needs a finite number in every rollout's score (NaN spreads through its reward tensor into
 * the group's advantages), so anything but "raise" or a finite number is refused at the first
 * call, before a request is sent, not at the first failure. No network: urlopen is replaced inside
 * the Python process and counts the requests.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { needs, which } from "../helpers/system.js";

const python = needs("python3", () => which("python3"), "apt-get install python3");

const SCRIPT = String.raw`
import io, json, logging, sys
sys.path.insert(0, sys.argv[1])
logging.disable(logging.CRITICAL)
import verl_reward
sent = []
ANSWERS = {"/healthz": {"inputs": ["question", "answer", "response"]}, "/v1/score": {"rewards": [None], "errors": ["JUDGE_PARSE: the judge's answer was malformed"]}}
class Answer(io.BytesIO):
    def __enter__(self): return self
    def __exit__(self, *a): return False
def urlopen(req, timeout=None):
    path = req.full_url[len("http://127.0.0.1:1"):]
    sent.append(path)
    return Answer(json.dumps(ANSWERS[path]).encode())
verl_reward.urllib.request.urlopen = urlopen
kw = {"url": "http://127.0.0.1:1", "token": "t"}
episode = {"turn_scores": [], "interaction_kwargs": {"name": "rubricate"}}
calls = {
    "one": lambda e: verl_reward.compute_score("qa", "r", "a", {"question": "q"}, on_error=e, **kw),
    "batch": lambda e: verl_reward.compute_score_batch(["qa"], ["r"], ["a"], [{"question": "q"}], on_error=e, **kw),
    "episode": lambda e: verl_reward.compute_score("qa", "r", "a", episode, on_error=e, **kw),
}
out = {}
for value, label in [("nan", "'nan'"), (float("nan"), "nan"), (float("inf"), "inf"), ("-inf", "'-inf'"), (True, "True"), ("zero", "'zero'"), (None, "None"), (0.25, "0.25"), ("-1", "'-1'"), ("raise", "'raise'")]:
    for name, call in calls.items():
        sent.clear()
        try:
            result = call(value)
            out[name + " " + label] = {"score": (result[0] if isinstance(result, list) else result)["score"], "sent": list(sent)}
        except Exception as e:
            out[name + " " + label] = {"raised": type(e).__name__, "message": str(e), "sent": list(sent)}
print(json.dumps(out))
`;

python.describe("verl_reward on_error (python3)", () => {
  it("refuses NaN, an infinity, a boolean or a word at the first call, sending nothing; a finite number is a failure's flagged score", async () => {
    const { stdout } = await promisify(execFile)(python.path!, ["-c", SCRIPT, join(ROOT, "examples/trainers")], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    const out = JSON.parse(stdout) as Record<string, { score?: number; raised?: string; message?: string; sent: string[] }>;
    for (const bad of ["'nan'", "nan", "inf", "'-inf'", "True", "'zero'", "None"]) {
      for (const call of ["one", "batch", "episode"]) {
        expect(out[`${call} ${bad}`], `${call} ${bad}`).toEqual({ raised: "ValueError", message: expect.stringMatching(/^on_error must be "raise" or a finite number .*, not /), sent: [] });
      }
    }
    // Whatever the failure (a judge error, an episode without a turn score), a finite on_error is the score.
    for (const call of ["one", "batch", "episode"]) {
      expect(out[`${call} 0.25`].score, call).toBe(0.25);
      expect(out[`${call} '-1'`].score, call).toBe(-1);
      expect(out[`${call} 'raise'`], call).toMatchObject({ raised: "RubricateError", message: expect.stringMatching(/could not compute a reward/) });
    }
    expect(out["one 0.25"].sent).toEqual(["/healthz", "/v1/score"]);
    expect(out["episode 0.25"].sent).toEqual([]);
  });
});
