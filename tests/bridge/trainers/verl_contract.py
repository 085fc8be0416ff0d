"""verl against a live server: python3 -I verl_contract.py <url> <path of verl_reward.py> < cases.json

Run with -I from a directory outside the repository, so nothing but the file itself can be
imported. Loads the file as verl's `load_module` does (spec_from_file_location under a
"custom_module_<hash>" name, not in sys.modules), binds `reward_kwargs` as verl's
`_call_with_kwargs` does, calls `compute_score(data_source=, solution_str=, ground_truth=,
extra_info=)` per rollout with gsm8k-shaped extra_info, and checks what the reward loop needs:
a float or a dict with a float "score", the same keys for every rollout, never None or NaN."""
import importlib.util
import json
import math
import os
import sys
from functools import partial

url, path = sys.argv[1], sys.argv[2]
cases = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location("custom_module_%d" % hash(os.path.abspath(path)), path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
reward_kwargs = {"url": url}


def call_with_kwargs(raw_fn, extra_kwargs, *args, **kwargs):
    return raw_fn(*args, **{**kwargs, **extra_kwargs})


compute_score = partial(call_with_kwargs, getattr(module, "compute_score"), reward_kwargs)
problems = []
infos = []
scores = []
for i, c in enumerate(cases):
    extra_info = {"split": "train", "index": i, "answer": "Worked solution... #### " + c["answer"], "question": c["question"]}
    result = compute_score(data_source="openai/gsm8k", solution_str=c["response"], ground_truth=c["answer"], extra_info=extra_info)
    if isinstance(result, dict):
        score = result["score"]
        infos.append(result)
    else:
        score = result
        infos.append({"acc": score})
    if score is None or not isinstance(score, (int, float)) or isinstance(score, bool) or math.isnan(score):
        problems.append("rollout %d: score %r" % (i, score))
    scores.append(score)
keys = list(infos[0].keys())  # the reward loop: np.array([info[key] for info in infos]) for the first rollout's keys
for i, info in enumerate(infos):
    if sorted(info) != sorted(keys):
        problems.append("rollout %d has keys %s, the first has %s (KeyError in verl)" % (i, sorted(info), sorted(keys)))
batch = partial(call_with_kwargs, getattr(module, "compute_score_batch"), reward_kwargs)(
    data_sources=["openai/gsm8k"] * len(cases), solution_strs=[c["response"] for c in cases], ground_truths=[c["answer"] for c in cases], extra_infos=[{"question": c["question"]} for c in cases]
)
print(json.dumps({"scores": scores, "errors": [info.get("rubricate_error") for info in infos], "batch": [b["score"] for b in batch], "keys": keys, "problems": problems, "in_sys_modules": spec.name in sys.modules}))
