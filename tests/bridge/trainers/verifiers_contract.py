"""verifiers' Rubric against a live server: python3 verifiers_contract.py <url> < cases.json

Calls the adapter's functions as `Rubric._call_individual_reward_func` does: only the keyword
arguments a function's signature names, out of {prompt, completion, answer, state, info, task},
awaited when it is a coroutine, `float()` of the result, and ANY exception turned into 0.0 (which
is what makes an exception a silent zero). `score_rollout` then sets state["reward"] (weights 1
and 0) and state["metrics"] by function name. Prints what each rollout got and what was logged."""
import asyncio
import inspect
import json
import logging
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "examples", "trainers"))
from verifiers_reward import RubricateReward  # noqa: E402

url = sys.argv[1]
cases = json.load(sys.stdin)
records = []


class Capture(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())


logging.getLogger("rubricate").addHandler(Capture())
exceptions = []


async def call(func, state):
    merged = {"prompt": state["prompt"], "completion": state["completion"], "answer": state.get("answer", ""), "state": state, "info": state.get("info", {}), "task": None}
    sig = inspect.signature(func)
    if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        allowed = merged
    else:
        allowed = {k: v for k, v in merged.items() if k in sig.parameters}
    try:
        value = func(**allowed)
        if inspect.isawaitable(value):
            value = await value
        return float(value)
    except Exception as e:  # verifiers: logger.error and 0.0
        exceptions.append(str(e))
        return 0.0


async def main():
    rubricate = RubricateReward(url)
    funcs, weights = [rubricate.rubricate, rubricate.rubricate_error], [1.0, 0.0]
    states = [{"prompt": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": c["question"]}], "completion": [{"role": "assistant", "content": c["response"]}], "answer": c["answer"], "info": {}, "trajectory": []} for c in cases]
    for state in states:
        scores = [await call(f, state) for f in funcs]
        state["reward"] = sum(s * w for s, w in zip(scores, weights))
        state["metrics"] = {f.__name__: s for f, s in zip(funcs, scores)}
    return states


states = asyncio.run(main())
print(json.dumps({"rewards": [s["reward"] for s in states], "metrics": [s["metrics"] for s in states], "logged": records, "exceptions": exceptions}))
