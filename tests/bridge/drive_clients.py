"""Calls a live `rubricate serve` through each Python client in examples/trainers and prints JSON.

    python3 tests/bridge/drive_clients.py <url> <token> < cases.json

cases.json: [{"question", "answer", "response"}...]. Prints {"trl_plain": [...], ...}; a reward
that is None stays null, and so does a verl score flagged `rubricate_error` 1.0 (its `on_error`).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "trainers"))

from rubricate_client import RubricateClient, RubricateError  # noqa: E402
from trl_reward import RubricateReward  # noqa: E402
import verl_reward  # noqa: E402
from verl_reward import compute_score, compute_score_batch  # noqa: E402

url, token = sys.argv[1], sys.argv[2]
cases = json.load(sys.stdin)
questions = [c["question"] for c in cases]
answers = [c["answer"] for c in cases]
responses = [c["response"] for c in cases]
out = {}

# TRL, plain format: the dataset column "answer" is already a rubric input.
plain = RubricateReward(url, token, max_batch=3)
out["trl_plain"] = plain(prompts=questions, completions=responses, answer=answers, completion_ids=[[1, 2]] * len(cases), trainer_state=None)
out["trl_plain_errors"] = plain.last_errors

# TRL, conversational format: a system turn, the user turn, one assistant message; "solution" renamed.
conv = RubricateReward(url, token, columns={"solution": "answer"})
prompts = [[{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": q}] for q in questions]
completions = [[{"role": "assistant", "content": r}] for r in responses]
out["trl_conversational"] = conv(prompts=prompts, completions=completions, solution=answers)
out["trl_name"] = conv.__name__

# verl: per-sample and batch signatures; the question comes through extra_info.
# verl's functions answer {"score": float, "rubricate_error": 0.0|1.0}: the score, or null where the flag says it is on_error's.
scored = lambda v: None if v["rubricate_error"] else v["score"]
out["verl_one"] = [scored(compute_score("qa", r, a, {"question": q, "index": i}, url=url, token=token, on_error=-1.0)) for i, (q, a, r) in enumerate(zip(questions, answers, responses))]
out["verl_batch"] = [scored(v) for v in compute_score_batch(["qa"] * len(cases), responses, answers, [{"question": q} for q in questions], url=url, token=token, on_error=-1.0)]
out["verl_fallback"] = [v["score"] for v in compute_score_batch(["qa"] * len(cases), responses, answers, [{"question": q} for q in questions], url=url, token=token, on_error=-1.0) if v["rubricate_error"]]
try:
    compute_score_batch(["qa"] * len(cases), responses, answers, [{"question": q} for q in questions], url=url, token=token, on_error="raise")
    out["verl_raise"] = "no error"
except verl_reward.RubricateError as e:
    out["verl_raise"] = str(e)

# A wrong token is a 4xx the client reports at once, without retrying.
try:
    RubricateClient(url, "wrong-" + token, retries=3).rewards([{"question": "q", "answer": "a", "response": "r"}])
    out["wrong_token"] = "accepted"
except RubricateError as e:
    out["wrong_token"] = {"status": e.status, "code": e.code}

out["stats_calls"] = RubricateClient(url, token).stats()["judge"]["calls"]
print(json.dumps(out))
