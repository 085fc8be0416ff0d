"""TRL's GRPOTrainer._calculate_rewards against a live server: python3 trl_contract.py <url> < cases.json

Calls RubricateReward exactly as TRL calls a sync reward function: prompts=, completions=,
completion_ids=, every other dataset column as a keyword list, plus trainer_state, log_extra and
log_metric. The contract: a list as long as completions of floats or None (TRL turns None into
NaN, then torch.tensor(dtype=float32)); a completion every function left NaN is unscorable."""
import json
import math
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "examples", "trainers"))
from trl_reward import RubricateReward  # noqa: E402

url = sys.argv[1]
cases = json.load(sys.stdin)
metrics = []
reward = RubricateReward(url)
inputs = [{"prompt": c["question"], "answer": c["answer"], "completion": c["response"]} for c in cases]
keys = [k for k in inputs[0] if k not in ("prompt", "completion", "completion_ids")]
reward_kwargs = {k: [x[k] for x in inputs] for k in keys}
reward_kwargs.update(trainer_state=object(), log_extra=lambda column, values: None, log_metric=lambda name, value: metrics.append([name, value]))
values = reward(prompts=[c["question"] for c in cases], completions=[c["response"] for c in cases], completion_ids=[[1, 2, 3]] * len(cases), **reward_kwargs)
problems = []
if len(values) != len(cases):
    problems.append("%d rewards for %d completions" % (len(values), len(cases)))
for v in values:
    if v is not None and type(v) is not float:
        problems.append("%r is neither a float nor None" % (v,))
    if isinstance(v, float) and math.isnan(v):
        problems.append("NaN returned; None is the missing marker")
as_tensor = [v if v is not None else float("nan") for v in values]  # TRL's conversion before torch.tensor(float32)
print(json.dumps({"values": values, "unscorable": [i for i, v in enumerate(as_tensor) if math.isnan(v)], "metrics": metrics, "problems": problems}))
