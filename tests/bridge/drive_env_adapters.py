"""Loads each trainer adapter the way its trainer loads it and checks the trainer's contract.

Run by tests/bridge/env-adapters.test.ts against a live `serve --env` (support-desk example).
Prints one JSON object of findings; the TypeScript side compares rewards with `rubricate eval`.

Contracts (read from the trainers' sources):
- TRL GRPOTrainer(environment_factory=f): `f()` zero-arg; instance methods found with
  inspect.getmembers(..., inspect.ismethod); `reset` required, `get_reward` optional, every other
  public method a tool whose schema transformers builds from type hints and a Google docstring
  (each argument under "Args:"); reset(**row) returns None or a str appended to the last user
  message; get_reward() returns a float (None -> NaN, ignored).
- OpenRLHF: `spec_from_file_location("agent_module", path)`, `AgentExecutor` subclass of
  AgentExecutorBase; MultiTurnAgentExecutor calls `await reset({"observation", "label"})`, then
  `await step({...})` and reads step_result["rewards"].item(), "scores", "environment_feedback",
  "done", "extra_logs"; samples_generator makes torch.tensor([reward]) and
  torch.tensor([extra_log_value]) - floats, never None. The OpenAI-server executor's
  run_agent(prompt, label, session_id) returns {"reward", "scores", "extra_logs"}.
- verl: class imported by module name (importlib.util.find_spec), built with config=dict;
  start_interaction(instance_id, **interaction_kwargs) -> id; generate_response(id, messages,
  **kwargs) -> (bool, str, float | None, dict).
"""

import asyncio
import importlib.util
import inspect
import json
import math
import os
import sys
import types

here = os.path.dirname(os.path.abspath(__file__))
trainers = os.path.join(here, "..", "..", "examples", "trainers")
out: dict = {}


def check(cond, message):
    if not cond:
        raise AssertionError(message)


# ---------- TRL ----------
sys.path.insert(0, trainers)
import rubricate_env  # noqa: E402  (TRL users import it from their script)

factory = rubricate_env.trl_environment_factory()
env = factory()
members = dict(inspect.getmembers(env, predicate=inspect.ismethod))
check("reset" in members and "get_reward" in members, f"reset/get_reward missing: {sorted(members)}")
tools = sorted(n for n in members if n not in ("reset", "get_reward") and not n.startswith("_"))
out["trl_tools"] = tools
for name in tools:
    fn = members[name]
    sig = inspect.signature(fn)
    doc = inspect.getdoc(fn) or ""
    check("Args:" in doc, f"{name}: no Args section")
    for p in sig.parameters.values():
        check(p.annotation is not inspect.Parameter.empty, f"{name}.{p.name}: no type hint")
        check(f"    {p.name}:" in fn.__doc__, f"{name}.{p.name}: not documented")
out["trl_signature_issue_refund"] = str(inspect.signature(members["issue_refund"]))

obs = env.reset(prompt=[{"role": "user", "content": ""}], task_id="damaged-blender")
check(isinstance(obs, str) and "ana@example.com" in obs, f"reset returned {obs!r}")
orders = json.loads(env.find_orders(email="ana@example.com"))
env.issue_refund(order_id=orders[0]["order_id"], amount=orders[0]["price"], reason="damaged on arrival")
reward = env.get_reward()
check(isinstance(reward, float), f"get_reward returned {reward!r}")
out["trl_env_reward"] = reward

comp_cls = rubricate_env.trl_environment_factory(reward="completions")
check(not hasattr(comp_cls(), "get_reward"), "completions mode must not define get_reward")
e2 = comp_cls()
e2.reset(task_id="damaged-blender")
e2.find_orders(email="ana@example.com")
e2.issue_refund(order_id="A100", amount=89.9, reason="damaged on arrival")
final = [{"role": "assistant", "content": "I'm sorry about the blender. I have refunded 89.9 euros for order A100; it will reach your card in a few days."}]
rewards = rubricate_env.completion_reward([final], environments=[e2])
check(all(isinstance(r, float) for r in rewards), f"completion_reward returned {rewards!r}")
out["trl_completion_reward"] = rewards[0]

# A task that does not exist: a clear error, not a silent 0.
try:
    env.reset(task_id="no-such-task")
    out["trl_bad_task"] = "no error"
except rubricate_env.RubricateEnvError as e:
    out["trl_bad_task"] = f"{e.status} {e.code}"

# ---------- OpenRLHF (real torch; OpenRLHF's base classes as its agent.py defines them) ----------
import torch  # noqa: E402

openrlhf = types.ModuleType("openrlhf")
utils = types.ModuleType("openrlhf.utils")
agent_mod = types.ModuleType("openrlhf.utils.agent")


class AgentExecutorBase:
    pass


class AgentInstanceBase:
    def __init__(self, *args, **kwargs):
        pass

    async def reset(self, states, **kwargs):
        return states


class MultiTurnAgentExecutor(AgentExecutorBase):
    def __init__(self, agent_instance_cls):
        assert issubclass(agent_instance_cls, AgentInstanceBase)
        self.agent_instance_cls = agent_instance_cls


agent_mod.AgentExecutorBase = AgentExecutorBase
agent_mod.AgentInstanceBase = AgentInstanceBase
agent_mod.MultiTurnAgentExecutor = MultiTurnAgentExecutor
sys.modules.update({"openrlhf": openrlhf, "openrlhf.utils": utils, "openrlhf.utils.agent": agent_mod})

spec = importlib.util.spec_from_file_location("agent_module", os.path.join(trainers, "openrlhf_agent.py"))
agent_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(agent_module)
check(hasattr(agent_module, "AgentExecutor") and issubclass(agent_module.AgentExecutor, AgentExecutorBase), "no AgentExecutor")
executor = agent_module.AgentExecutor()


async def play_openrlhf(label, actions):
    inst = executor.agent_instance_cls()
    reset = await inst.reset({"observation": "<prompt>", "label": label})
    check(isinstance(reset["observation"], str), "observation must be text")
    total, final, logs, feedback = 0.0, 0.0, {}, []
    for action in actions:
        res = await inst.step({"observation_text": "", "action_text": action, "label": label, "sampling_params": None})
        total += res["rewards"].item()
        final = res.get("scores", total)
        feedback.append(res["environment_feedback"])
        logs = res.get("extra_logs", {})
        if res["done"]:
            break
    # samples_generator: torch.tensor([reward]) must be floating point (std() of int64 fails).
    reward_t = torch.tensor([total])
    check(reward_t.is_floating_point(), f"reward tensor dtype {reward_t.dtype}")
    float(torch.tensor([total, 1.0]).std())
    for k, v in logs.items():
        t = torch.tensor([v.flatten()[0].item() if isinstance(v, torch.Tensor) else v])
        check(t.is_floating_point(), f"extra_logs[{k}] dtype {t.dtype}")
    return {"reward": total, "scores": float(final.item() if isinstance(final, torch.Tensor) else final), "logs": {k: float(v) for k, v in logs.items()}, "feedback": feedback}


out["openrlhf_late_return"] = asyncio.run(play_openrlhf("late-return", ["I'm sorry, I can't refund order B200: it was delivered 101 days ago. Our policy only allows refunds of delivered orders within 30 days."]))
out["openrlhf_json_label"] = asyncio.run(play_openrlhf('{"task_id": "not-delivered"}', ["Sure, refunded!"]))
# A tool call written in the raw text (Qwen template), ended by the model's end token: the tool
# runs, and the feedback starts after that end token (vLLM keeps its id in the action tokens)
# instead of repeating it.
tool_turn = asyncio.run(play_openrlhf("damaged-blender", ['<tool_call>\n{"name": "find_orders", "arguments": {"email": "ana@example.com"}}\n</tool_call><|im_end|>']))
out["openrlhf_tool_feedback"] = tool_turn["feedback"][0]
out["openrlhf_tool_logs"] = sorted(tool_turn["logs"])


class FakeServerExecutor:
    """What OpenRLHF's OpenAI-server executor exposes to run_agent: client.base_url, model_name, sampling_params."""

    class _SP:
        temperature = 0.7
        top_p = 1.0
        max_tokens = 256
        logprobs = None

    def __init__(self, base_url, model):
        self.client = types.SimpleNamespace(base_url=base_url)
        self.model_name = model
        self.sampling_params = self._SP()


ex = FakeServerExecutor(os.environ["POLICY_URL"] + "/", "agent")
result = asyncio.run(agent_module.rollout_run_agent(ex, "<prompt>", "damaged-blender", "sess-42"))
check(type(result["reward"]) is float and type(result["scores"]) is float, f"run_agent result {result!r}")
check(all(type(v) is float for v in result["extra_logs"].values()), f"extra_logs {result['extra_logs']!r}")
out["openrlhf_run_agent"] = result

# OpenRLHF's defaults: sampling_params.max_tokens None (its server would compute min(None, n)) and
# logprobs asked for (its _stitch_session fills rollout_log_probs from the traced logprobs).
ex2 = FakeServerExecutor(os.environ["POLICY_URL"] + "/", "agent")
ex2.sampling_params.max_tokens = None
ex2.sampling_params.logprobs = 1
ex2.max_length = 4096
result2 = asyncio.run(agent_module.rollout_run_agent(ex2, "<prompt>", "damaged-blender", "sess-43"))
out["openrlhf_run_agent_defaults"] = result2

# ---------- verl ----------
spec = importlib.util.find_spec("verl_interaction")
check(spec is not None, "verl_interaction is not importable by module name")
verl_mod = importlib.util.module_from_spec(spec)
sys.modules["verl_interaction"] = verl_mod
spec.loader.exec_module(verl_mod)
interaction = verl_mod.RubricateInteraction(config={"name": "rubricate"})


async def play_verl():
    iid = await interaction.start_interaction("req-1", name="rubricate", task_id="not-delivered")
    messages = [{"role": "user", "content": "..."}, {"role": "assistant", "content": "I'm sorry, order C300 is not delivered yet, so I can't refund it. Please wait for delivery."}]
    terminate, text, score, metrics = await interaction.generate_response(iid, messages, name="rubricate", task_id="not-delivered")
    check(isinstance(terminate, bool) and isinstance(text, str) and (score is None or isinstance(score, float)) and isinstance(metrics, dict), "verl tuple types")
    return {"terminate": terminate, "score": score, "metrics": metrics}


out["verl"] = asyncio.run(play_verl())
print(json.dumps(out))
