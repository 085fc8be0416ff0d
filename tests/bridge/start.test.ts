/** `serve` fails at start, not once per sample, when a rubric input is fed by no request field (issue 17, item 3). */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, describe } from "vitest";
import { ROOT, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { decide, jsonOf, KEY, startServe } from "./helpers.js";

let judge: TestServer<unknown>;
beforeAll(async () => {
  judge = (await startOpenAIServer({ respond: judgeResponder(decide) })) as TestServer<unknown>;
  process.env.RUBRICATE_TEST_KEY = KEY;
});
afterAll(async () => judge?.close());

describe("inputs checked at start", () => {
  it("the README's first command (rubrics/math-answer.yaml) feeds problem from prompts and answer from labels: rewards, no MISSING_INPUT", async () => {
    const s = await startServe(["--rubric", join(ROOT, "rubrics/math-answer.yaml"), "--judge", writeJudgeFile(tempDir(), judge.url, { max_retries: 0 }), "--port", "0", "--no-cache"]);
    try {
      expect(s.stderr()).toMatch(/prompt <- problem, label <- answer/);
      const prompt = "<|im_start|>user\nSam has 12 apples and eats 5. How many are left?<|im_end|>\n<|im_start|>assistant\n";
      const res = await fetch(`${s.url}/get_reward`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: [`${prompt}12 - 5 = 7. Final answer: 7<|im_end|>`], prompts: [prompt], labels: ["7"] }) });
      const body = await jsonOf(res);
      expect(res.status).toBe(200);
      expect(body.errors[0] ?? "").not.toMatch(/MISSING_INPUT/);
      expect(typeof body.rewards[0]).toBe("number");
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
  });

  it("a rubric input no request field feeds stops serve at start, naming the input and the flags", async () => {
    const attempt = startServe(["--rubric", join(ROOT, "rubrics/code-review-comment.yaml"), "--judge", writeJudgeFile(tempDir(), judge.url), "--port", "0", "--no-cache"]);
    await expect(attempt).rejects.toThrow(/exited \(1\)[\s\S]*needs inputs "diff", "issue" that no request field feeds[\s\S]*--prompt-field diff[\s\S]*--label-fields diff,issue/);
    const fed = await startServe(["--rubric", join(ROOT, "rubrics/code-review-comment.yaml"), "--judge", writeJudgeFile(tempDir(), judge.url), "--port", "0", "--no-cache", "--prompt-field", "diff", "--label-fields", "issue"]);
    fed.child.kill("SIGTERM");
    const end = await fed.exited;
    expect(end, fed.stderr()).toEqual({ code: 0, signal: null });
  });
});

describe("serve --env --unsafe-no-sandbox (issue 27, Medium 6)", () => {
  const env = join(ROOT, "examples/ctf");
  it("refuses to start without a token, saying why", async () => {
    const attempt = startServe(["--env", env, "--unsafe-no-sandbox", "--port", "0", "--no-cache"], { RUBRICATE_TOKEN: "" });
    await expect(attempt).rejects.toThrow(/exited \(2\)[\s\S]*rubricate: --unsafe-no-sandbox lets every client .* run commands on this machine[\s\S]*without a token \(--token or RUBRICATE_TOKEN\)/);
  });

  it("starts with a token, requires it, and warns what a token holder can do", async () => {
    const s = await startServe(["--env", env, "--unsafe-no-sandbox", "--judge", writeJudgeFile(tempDir(), judge.url), "--port", "0", "--no-cache"], { RUBRICATE_TOKEN: "t0ken-for-the-test" });
    try {
      expect(s.stderr()).toMatch(/warning: --unsafe-no-sandbox: every holder of the token can run commands/);
      expect(s.stderr()).toMatch(/token required/);
      const res = await fetch(`${s.url}/v1/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ task_index: 0 }) });
      expect(res.status).toBe(401);
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
  });
});

describe("judge family", () => {
  it("serve --env examples/wordle/env.yaml starts without --response-field (its rubric grades game_log) and plays a game; a --response-field naming no input still stops it", async () => {
    const judgeFile = writeJudgeFile(tempDir(), judge.url);
    const s = await startServe(["--env", join(ROOT, "examples/wordle/env.yaml"), "--judge", judgeFile, "--port", "0", "--no-cache"]);
    try {
      const post = async (path: string, body: unknown) => jsonOf(await fetch(s.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
      const opened = await post("/v1/sessions", { task_id: "w1" });
      expect(opened.answers_turns).toBe(true);
      const stepped = await post(`/v1/sessions/${opened.session_id}/step`, { content: "GUESS: crane" });
      expect(stepped.done).toBe(true);
      const finished = await post(`/v1/sessions/${opened.session_id}/finish`, {});
      expect(finished.verdicts.find((v: { id: string }) => v.id === "solved").status).toBe("met");
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
    await expect(startServe(["--env", join(ROOT, "examples/wordle/env.yaml"), "--judge", judgeFile, "--port", "0", "--no-cache", "--response-field", "response"])).rejects.toThrow(/--response-field response is not an input of rubric wordle-play/);
  });

  it("--trainee of the judge's family warns at start; another family does not", async () => {
    const judgeFile = writeJudgeFile(tempDir(), judge.url, { model: "qwen3-32b-instruct" });
    const same = await startServe(["--rubric", join(ROOT, "rubrics/math-answer.yaml"), "--judge", judgeFile, "--port", "0", "--no-cache", "--trainee", "openai-compatible:qwen3-8b@http://127.0.0.1:9/v1"]);
    same.child.kill("SIGTERM");
    await same.exited;
    expect(same.stderr()).toMatch(/warning: .*family/);
    const other = await startServe(["--rubric", join(ROOT, "rubrics/math-answer.yaml"), "--judge", judgeFile, "--port", "0", "--no-cache", "--trainee", "llama-3.1-8b"]);
    other.child.kill("SIGTERM");
    await other.exited;
    expect(other.stderr()).not.toMatch(/family/);
  });
});
