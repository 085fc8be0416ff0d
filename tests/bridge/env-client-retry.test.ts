/**
 * examples/trainers/rubricate_env.py's EnvClient (every environment adapter's HTTP client: TRL,
 * OpenRLHF, verl, verifiers) under the answers a proxy or load balancer may put in front of the
 * server. No network: urlopen and sleep are replaced inside the Python process.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { needs, which } from "../helpers/system.js";

const python = needs("python3", () => which("python3"), "apt-get install python3");

/** 503 with an HTTP-date Retry-After (RFC 9110 allows it), one with a negative number, a 429 with text, then the answer. */
const SCRIPT = String.raw`
import email.message, io, json, sys, urllib.error
sys.path.insert(0, sys.argv[1])
import rubricate_env
sleeps, answers = [], []
rubricate_env.time.sleep = lambda s: sleeps.append(s)
script = [(503, "Wed, 21 Oct 2015 07:28:00 GMT"), (503, "-5"), (429, "soon"), (200, None)]
class Ok:
    def __enter__(self): return self
    def __exit__(self, *a): return False
    def read(self): return b'{"session_id": "s1", "messages": []}'
def urlopen(req, timeout=None):
    status, value = script[len(answers)]
    answers.append(status)
    if status == 200:
        return Ok()
    headers = email.message.Message()
    headers["Retry-After"] = value
    raise urllib.error.HTTPError(req.full_url, status, "busy", headers, io.BytesIO(b'{"error": {"code": "X", "message": "busy"}}'))
rubricate_env.urllib.request.urlopen = urlopen
try:
    out = {"session_id": rubricate_env.EnvClient("http://127.0.0.1:1", retries=4).open(task_index=0)["session_id"]}
except Exception as e:
    out = {"raised": type(e).__name__ + ": " + str(e)}
print(json.dumps({**out, "sleeps": sleeps, "answers": answers}))
`;

python.describe("EnvClient retries (python3)", () => {
  it("a Retry-After that is an HTTP date, negative or text is waited on (or backed off), never a ValueError that ends the run", async () => {
    const { stdout } = await promisify(execFile)(python.path!, ["-c", SCRIPT, join(ROOT, "examples/trainers")], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    // The date is past: no wait; -5: no wait; "soon": the client's own backoff (0.5 s doubled twice).
    expect(JSON.parse(stdout)).toEqual({ session_id: "s1", sleeps: [0, 0, 2], answers: [503, 503, 429, 200] });
  });
});
