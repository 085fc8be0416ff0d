"""Each trainer's loop, reduced to its contract, playing a rubricate environment through the adapters.

Run by tests/bridge/trainer-loops.ts (the env-trainer-loops-*.test.ts files):
`python3 drive_trainer_loops.py <scenario>[=<url>] ...` with RUBRICATE_ENV_URL and ENV_NAME set
runs the scenarios one after another in this one interpreter (torch loads once), each against its
own server, and prints one JSON object: each scenario's output under its name (see `main`). The trainers are not installable here, so each
loop below is a stand-in that calls the adapter exactly as the trainer's code does (read from
trl f2cd577, OpenRLHF 3c3be62, verl b178a3c); nothing of theirs is copied. The contracts:

TRL GRPOTrainer (trainer/grpo_trainer.py):
- `factory()` once at init (a probe, kept in the pool), `inspect.getmembers(instance, ismethod)`:
  `reset` required, `get_reward` optional, other public methods are tools keyed by `__name__`.
- per batch: instances drawn from the pool (more made with `factory()`), `reset(**row)` -> None
  or str appended to the last user message; NOT guarded (an exception stops training).
- `_tool_call_loop`: `tool(**arguments)`; any exception becomes `{"error": str(e)}` for the model.
- `_calculate_rewards`: the env reward column is `[e.get_reward() if type(e) is env_type else None]`,
  None -> NaN (torch.nan), float32, `nansum`; NOT guarded.
- AsyncGRPOTrainer (experimental/async_grpo): `environment_factory` is pickled into a spawned
  process, so the factory must pickle and work in a fresh interpreter.

OpenRLHF (utils/agent.py, trainer/ppo_utils/experience.py):
- the agent file is loaded with `spec_from_file_location("agent_module", path)`; `AgentExecutor()`.
- MultiTurnAgentExecutor.execute: `reset({"observation", "label"})`, then while the budget
  `max_length - len(tokens)` is positive: generate, `step({"observation_text", "action_text",
  "label", "sampling_params"})`, `rewards.item()`, feedback appended, stop on `done`; when the
  budget runs out it just stops. The sample keeps the LAST step's `extra_logs`.
- samples -> `torch.tensor([v])` per key; `split_experience_batch` raises
  "Size of info[k] (n) does not match batch_size (m)" when a key is missing from some sample.
- OpenAI-server executor: `run_agent(prompt, label, session_id)`; its server reads `max_tokens`
  (default the executor's sampling_params.max_tokens, which may be None: min(None, n) fails),
  `logprobs`, `top_logprobs`, `session_id`.

verl (experimental/agent_loop/tool_agent_loop.py, tools/, interactions/):
- tools: `initialize_tools_from_config` imports `class_name` by module name, builds it with
  `config=dict, tool_schema=OpenAIFunctionToolSchema` (pydantic: properties need `type`); per call
  `create(create_kwargs=...)`, `execute(instance_id, args: dict, agent_data=AgentData)`,
  `release(instance_id)`; an exception becomes the tool text "Error when executing tool: ...".
- interaction: `start_interaction(request_id, **interaction_kwargs)`; after a turn without tool
  calls `generate_response(request_id, messages, **interaction_kwargs)` -> (terminate, text,
  score, metrics); a non-None score joins `turn_scores`; exceptions fail the loop.
- the loop stops at `max_assistant_turns` right after generation, calling nothing.
- the reward function gets `extra_info` = the row's extra_info + `turn_scores` + `tool_rewards`.
"""

import asyncio
import importlib.util
import inspect
import json
import math
import os
import pickle
import subprocess
import sys
import threading
import types
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

from scenario_runner import run_scenarios  # beside this file, on the path of a script run as `python3 <file>`

here = os.path.dirname(os.path.abspath(__file__))
trainers = os.path.abspath(os.path.join(here, "..", "..", "examples", "trainers"))
sys.path.insert(0, trainers)

import torch  # noqa: E402

URL = os.environ["RUBRICATE_ENV_URL"]
ENV = os.environ["ENV_NAME"]
MANY = int(os.environ.get("MANY", "64"))  # the concurrent episodes of the `play` and `verifiers` scenarios
TRAJECTORIES = json.load(open(os.path.join(here, "fixtures", "trajectories.json")))[ENV]
out: dict = {}


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def http(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(URL + path, data=data, method=method, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


def open_sessions():
    return http("GET", "/v1/sessions")["open"]


def hermes(turn, end=""):
    """The model's raw text for a turn, tool calls written as a Qwen/Hermes template writes them."""
    parts = [turn.get("text", "")] + [f"<tool_call>\n{json.dumps({'name': c['name'], 'arguments': c['arguments']})}\n</tool_call>" for c in turn.get("calls", [])]
    return "\n".join(p for p in parts if p) + end


import rubricate_env  # noqa: E402  (TRL users import it from their script)

ANSWERS_TURNS = rubricate_env.describe_env(rubricate_env.EnvClient()).get("answers_turns")


# ---------------- TRL ----------------
class TrlTrainer:
    """GRPOTrainer's environment statements: probe, pool, reset, tool loop, reward column."""

    def __init__(self, factory):
        self.factory = factory
        probe = factory()
        methods = dict(inspect.getmembers(probe, predicate=inspect.ismethod))
        check("reset" in methods, "no reset")
        self.env_type = type(probe)
        self.has_reward = "get_reward" in methods
        self.pool = [probe]

    def rollouts(self, rows, turns_of):
        while len(self.pool) < len(rows):
            self.pool.append(self.factory())
        envs = self.pool[: len(rows)]
        for env, row in zip(envs, rows):
            obs = env.reset(**row)
            check(obs is None or isinstance(obs, str), f"reset returned {obs!r}")

        def play(env, turns):
            completion = ""
            tools = {n: m for n, m in inspect.getmembers(env, predicate=inspect.ismethod) if n not in ("reset", "get_reward") and not n.startswith("_")}
            for turn in turns:
                for call in turn.get("calls", []):
                    try:
                        tools[call["name"]](**call["arguments"])
                    except Exception as e:  # TRL: {"error": str(e)} goes back to the model
                        completion += json.dumps({"error": str(e)})
                if "text" in turn and "calls" not in turn:
                    if "reply" in tools:
                        try:
                            tools["reply"](message=turn["text"])
                        except Exception as e:
                            completion += json.dumps({"error": str(e)})
                    else:
                        completion = turn["text"]  # the final assistant message
            return [{"role": "assistant", "content": completion}]

        with ThreadPoolExecutor(max_workers=16) as pool:
            completions = list(pool.map(play, envs, [turns_of(r) for r in rows]))
        if self.has_reward:
            rewards = [e.get_reward() if type(e) is self.env_type else None for e in envs]
        else:
            rewards = rubricate_env.completion_reward(completions, environments=envs)
        check(all(r is None or type(r) is float for r in rewards), f"rewards {rewards!r}")
        tensor = torch.tensor([torch.nan if r is None else r for r in rewards], dtype=torch.float32)
        return [None if math.isnan(v) else v for v in tensor.tolist()], rewards


def trl_factory():
    # An environment that answers turns is scored as it stands; one that ends on the model's final text scores that text.
    return rubricate_env.trl_environment_factory(reward="env" if ANSWERS_TURNS or ENV == "ctf" else "completions")


# ---------------- OpenRLHF ----------------
def load_openrlhf_agent():
    openrlhf = types.ModuleType("openrlhf")
    utils = types.ModuleType("openrlhf.utils")
    agent_mod = types.ModuleType("openrlhf.utils.agent")

    class AgentExecutorBase:
        pass

    class AgentInstanceBase:
        def __init__(self, *args, **kwargs):
            pass

    class MultiTurnAgentExecutor(AgentExecutorBase):
        def __init__(self, agent_instance_cls):
            self.agent_instance_cls = agent_instance_cls

        async def execute(self, label, actions, max_length):
            """The loop of MultiTurnAgentExecutor.execute; tokens counted as characters here."""
            inst = self.agent_instance_cls()
            reset = await inst.reset({"observation": "<prompt>", "label": label})
            used, total, logs, scores = len(reset["observation"]), 0.0, {}, 0.0
            sp = types.SimpleNamespace(max_tokens=None, logprobs=None)
            for action in actions:
                sp.max_tokens = max_length - used
                if sp.max_tokens <= 0:
                    break
                res = await inst.step({"observation_text": "", "action_text": action, "label": label, "sampling_params": sp})
                total += res["rewards"].item()
                scores = res.get("scores", total)
                logs = res.get("extra_logs", {})
                used += len(action) + len(res["environment_feedback"])
                if res["done"]:
                    break
            return {"reward": total, "scores": float(scores.item() if isinstance(scores, torch.Tensor) else scores), "extra_logs": logs}

    agent_mod.AgentExecutorBase = AgentExecutorBase
    agent_mod.AgentInstanceBase = AgentInstanceBase
    agent_mod.MultiTurnAgentExecutor = MultiTurnAgentExecutor
    sys.modules.update({"openrlhf": openrlhf, "openrlhf.utils": utils, "openrlhf.utils.agent": agent_mod})
    spec = importlib.util.spec_from_file_location("agent_module", os.path.join(trainers, "openrlhf_agent.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def openrlhf_batch(samples):
    """samples_generator + split_experience_batch: one tensor per key across the batch, each of batch length."""
    keys = samples[0]["extra_logs"].keys()
    info = {k: torch.cat([torch.tensor([s["extra_logs"][k]]) for s in samples if k in s["extra_logs"]]) for k in keys}
    for k, v in info.items():
        check(v.is_floating_point(), f"extra_logs[{k}] dtype {v.dtype}")
        if len(v) != len(samples):
            raise ValueError(f"Size of info[{k}] ({len(v)}) does not match batch_size ({len(samples)})")
    for s in samples:
        check(set(s["extra_logs"]) == set(keys), f"keys differ: {sorted(s['extra_logs'])} vs {sorted(keys)}")
    rewards = torch.tensor([s["reward"] for s in samples])
    check(rewards.is_floating_point(), "rewards must be float")
    return info


# ---------------- verl ----------------
def load_verl():
    """verl's modules as the adapters import them (BaseTool, ToolResponse, BaseInteraction, ToolAgentLoop)."""
    names = ["verl", "verl.tools", "verl.tools.base_tool", "verl.tools.schemas", "verl.interactions", "verl.interactions.base", "verl.experimental", "verl.experimental.agent_loop", "verl.experimental.agent_loop.tool_agent_loop"]
    mods = {n: types.ModuleType(n) for n in names}

    class ToolResponse:
        def __init__(self, text=None, image=None, video=None):
            self.text, self.image, self.video = text, image, video

    class BaseTool:
        def __init__(self, config, tool_schema):
            self.config = config
            self.tool_schema = tool_schema
            self.name = tool_schema["function"]["name"]

        async def create(self, instance_id=None, **kwargs):
            return instance_id or uuid.uuid4().hex, ToolResponse()

        async def release(self, instance_id, **kwargs):
            pass

    class BaseInteraction:
        def __init__(self, config):
            self.config = config
            self.name = config.get("name", "interaction_agent")

    class AgentData:
        def __init__(self, request_id):
            self.request_id = request_id

    class Output:
        def __init__(self):
            self.extra_fields = {}

    class ToolAgentLoop:
        """ToolAgentLoop.run's state machine: generate; calls -> tools; else -> interaction; stop at max_assistant_turns."""

        def __init__(self, tools, interaction, max_assistant_turns):
            self.tools, self.interaction, self.max_assistant_turns = tools, interaction, max_assistant_turns

        async def run(self, sampling_params, **kwargs):
            turns, kw = kwargs["turns"], kwargs["extra_info"]["interaction_kwargs"]
            request_id = uuid.uuid4().hex
            await self.interaction.start_interaction(request_id, **kw)
            data, messages, turn_scores, assistant_turns = AgentData(request_id), [], [], 0
            for turn in turns:
                assistant_turns += 1
                if self.max_assistant_turns and assistant_turns >= self.max_assistant_turns:
                    break
                messages.append({"role": "assistant", "content": turn.get("text", "")})
                if turn.get("calls"):
                    for call in turn["calls"]:
                        tool, iid = None, None
                        try:
                            tool = self.tools[call["name"]]
                            iid, _ = await tool.create(create_kwargs={})
                            resp, _, _ = await tool.execute(iid, call["arguments"], agent_data=data)
                            messages.append({"role": "tool", "content": resp.text or ""})
                        except Exception as e:
                            messages.append({"role": "tool", "content": f"Error when executing tool: {e}"})
                        finally:
                            if tool and iid:
                                await tool.release(iid)
                    continue
                terminate, text, score, _metrics = await self.interaction.generate_response(request_id, messages, **kw)
                messages.append({"role": "user", "content": text})
                if score is not None:
                    turn_scores.append(score)
                if terminate:
                    break
            out = Output()
            out.extra_fields.update({"turn_scores": turn_scores, "tool_rewards": []})
            return out

    mods["verl.tools.base_tool"].BaseTool = BaseTool
    mods["verl.tools.schemas"].ToolResponse = ToolResponse
    mods["verl.interactions.base"].BaseInteraction = BaseInteraction
    mods["verl.experimental.agent_loop.tool_agent_loop"].ToolAgentLoop = ToolAgentLoop
    sys.modules.update(mods)

    def by_name(module_name):  # get_tool_class / get_interaction_class: find_spec, exec, sys.modules
        if module_name in sys.modules:
            return sys.modules[module_name]
        spec = importlib.util.find_spec(module_name)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        return module

    written = subprocess.run([sys.executable, os.path.join(trainers, "verl_tools.py"), "--url", URL], capture_output=True, text=True, check=True).stdout
    registry_file = json.loads("\n".join(line for line in written.splitlines() if not line.startswith("#")))  # YAML comments, then JSON
    tools = {}
    for entry in registry_file["tools"]:
        check(entry["config"]["type"] == "native", "native tools")
        schema = entry["tool_schema"]
        for p in schema["function"]["parameters"]["properties"].values():
            check(isinstance(p.get("type"), str) and set(p) <= {"type", "description", "enum"}, f"verl's property schema refuses {p}")
        check(isinstance(schema["function"]["description"], str), "description required")
        module_name, cls_name = entry["class_name"].rsplit(".", 1)
        tool = getattr(by_name(module_name), cls_name)(config=entry["config"], tool_schema=schema)
        tools[tool.name] = tool
    interaction = getattr(by_name("verl_interaction"), "RubricateInteraction")(config={"url": URL, "name": "rubricate"})
    loop_cls = getattr(by_name("verl_agent_loop"), "RubricateAgentLoop")
    spec = importlib.util.spec_from_file_location("custom_module", os.path.join(trainers, "verl_reward.py"))
    reward = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reward)
    return tools, interaction, loop_cls, reward, registry_file


async def verl_trajectory(loop_cls, tools, interaction, reward, task_id, turns, max_assistant_turns=0):
    loop = loop_cls(tools, interaction, max_assistant_turns)
    kw = {"name": "rubricate", "task_id": task_id}
    output = await loop.run({}, turns=turns, extra_info={"interaction_kwargs": kw})
    extra_info = {"interaction_kwargs": kw, **output.extra_fields}
    # The naive reward manager runs compute_score in an executor thread.
    return await asyncio.get_running_loop().run_in_executor(None, lambda: reward.compute_score(data_source="rubricate", solution_str="", ground_truth=None, extra_info=extra_info))


# ---------------- scenarios ----------------
def rows_and_turns():
    rows = [{"prompt": [{"role": "user", "content": ""}], "task_id": t} for t in TRAJECTORIES]
    return rows, (lambda row: TRAJECTORIES[row["task_id"]])


def scenario_play():
    """Every trajectory through every adapter, then 64 concurrent episodes; all sessions closed after."""
    rows, turns_of = rows_and_turns()
    trl = TrlTrainer(trl_factory())
    out["trl"] = dict(zip([r["task_id"] for r in rows], trl.rollouts(rows, turns_of)[0]))

    # AsyncGRPOTrainer: the factory pickled into a fresh interpreter, played there.
    blob = pickle.dumps(trl.factory)
    child = subprocess.run([sys.executable, "-c", (
        "import pickle, sys, json; sys.path.insert(0, sys.argv[1]); f = pickle.loads(sys.stdin.buffer.read()); e = f(); "
        "e.reset(task_id=sys.argv[2]); print(json.dumps(sorted(n for n in dir(e) if not n.startswith('_'))))"
    ), trainers, rows[0]["task_id"]], input=blob, capture_output=True, env={**os.environ})
    check(child.returncode == 0, f"unpickled factory failed: {child.stderr.decode()}")
    out["trl_pickled_members"] = json.loads(child.stdout)

    agent = load_openrlhf_agent()
    executor = agent.AgentExecutor()

    async def openrlhf_all(labels, end=""):
        return await asyncio.gather(*[executor.execute(label, [hermes(t, end) for t in TRAJECTORIES[label]], 100_000) for label in labels])

    samples = asyncio.run(openrlhf_all(list(TRAJECTORIES), end="<|im_end|>"))
    openrlhf_batch(samples)
    out["openrlhf"] = {label: s["reward"] for label, s in zip(TRAJECTORIES, samples)}
    out["openrlhf_keys"] = sorted(samples[0]["extra_logs"])

    tools, interaction, loop_cls, reward, registry = load_verl()
    out["verl_tools"] = sorted(tools)
    out["verl_registry"] = registry

    async def verl_all(task_ids):
        return await asyncio.gather(*[verl_trajectory(loop_cls, tools, interaction, reward, t, TRAJECTORIES[t]) for t in task_ids])

    scored = asyncio.run(verl_all(list(TRAJECTORIES)))
    check(all(set(s) == {"score", "rubricate_error"} for s in scored), f"verl keys {scored}")
    out["verl"] = {t: s["score"] for t, s in zip(TRAJECTORIES, scored)}
    out["verl_errors"] = [s["rubricate_error"] for s in scored]
    out["open_after_play"] = open_sessions()

    # MANY (64 unless set) concurrent episodes per trainer, the tasks round-robin.
    many = [list(TRAJECTORIES)[i % len(TRAJECTORIES)] for i in range(MANY)]
    trl64 = TrlTrainer(trl_factory())
    out["trl_64"] = trl64.rollouts([{"task_id": t} for t in many], turns_of)[0]
    samples64 = asyncio.run(openrlhf_all(many))
    openrlhf_batch(samples64)
    out["openrlhf_64"] = [s["reward"] for s in samples64]
    out["verl_64"] = [s["score"] for s in asyncio.run(verl_all(many))]
    out["tasks_64"] = many
    out["open_after_64"] = open_sessions()


def scenario_cut():
    """Episodes the trainer stops itself: OpenRLHF's token budget, verl's max_assistant_turns. Same keys; sessions closed."""
    long_task = max(TRAJECTORIES, key=lambda t: len(TRAJECTORIES[t]))
    agent = load_openrlhf_agent()
    executor = agent.AgentExecutor()

    async def budget():
        first = len("<prompt>") + len(hermes(TRAJECTORIES[long_task][0])) + 1
        done = await executor.execute(long_task, [hermes(t) for t in TRAJECTORIES[long_task]], 100_000)
        cut = await executor.execute(long_task, [hermes(t) for t in TRAJECTORIES[long_task]], first)
        return [done, cut]

    samples = asyncio.run(budget())
    openrlhf_batch(samples)
    out["openrlhf_cut"] = samples[1]["extra_logs"]
    import gc

    gc.collect()
    for _ in range(200):  # the finalizer closes in a background thread
        if open_sessions() == 0:
            break
        threading.Event().wait(0.05)
    out["open_after_budget"] = open_sessions()

    tools, interaction, loop_cls, reward, _ = load_verl()
    scored = asyncio.run(verl_trajectory(loop_cls, tools, interaction, reward, long_task, TRAJECTORIES[long_task], max_assistant_turns=2))
    out["verl_cut"] = scored
    out["verl_cut_task"] = long_task
    out["open_after_verl_cut"] = open_sessions()


def scenario_fail():
    """The server goes away mid-episode (FAIL=kill: SIGKILLed; FAIL=expire: the session is closed under the trainer, as idle expiry does)."""
    how = os.environ["FAIL"]
    task = next(t for t in TRAJECTORIES if len(TRAJECTORIES[t]) >= 2)
    turns = TRAJECTORIES[task]

    def break_it(session_id):
        if how == "kill":
            os.kill(int(os.environ["SERVE_PID"]), 9)
        else:
            http("DELETE", f"/v1/sessions/{session_id}")

    agent = load_openrlhf_agent()  # reads the criteria while the server is up
    executor = agent.AgentExecutor()
    tools, interaction, loop_cls, reward, _ = load_verl()
    factory = trl_factory()

    # All three hold a session that breaks after their first turn.
    env = factory()
    env.reset(task_id=task)
    inst = executor.agent_instance_cls()
    asyncio.run(inst.reset({"observation": "<prompt>", "label": task}))
    first = asyncio.run(inst.step({"observation_text": "", "action_text": hermes(turns[0]), "label": task, "sampling_params": None}))
    healthy_keys = sorted(first["extra_logs"])
    ok = asyncio.run(executor.execute(task, [hermes(t) for t in turns], 100_000)) if how == "expire" else None

    if how == "expire":
        break_it(env._session["session_id"])
        break_it(inst.session_id)
    else:
        break_it(None)

    # TRL: the next tool call fails (TRL shows the error to the model), get_reward is None, nothing raises.
    try:
        for call in turns[1].get("calls", []):
            getattr(env, call["name"])(**call["arguments"])
        if "calls" not in turns[1] and "reply" in dir(env):
            env.reply(message=turns[1]["text"])
    except Exception as e:
        out["trl_tool_error"] = type(e).__name__
    out["trl_reward"] = env.get_reward() if hasattr(env, "get_reward") else rubricate_env.completion_reward([turns[-1].get("text", "")], environments=[env])[0]

    # OpenRLHF: the rest of the episode gives the fallback, flagged, with the healthy keys.
    rest = asyncio.run(inst.step({"observation_text": "", "action_text": hermes(turns[1]), "label": task, "sampling_params": None}))
    sample = {"reward": rest["rewards"].item(), "scores": rest["scores"].item(), "extra_logs": rest["extra_logs"]}
    batch = [sample] + ([ok] if ok else [])
    openrlhf_batch(batch)
    out["openrlhf_failed"] = sample
    out["openrlhf_keys_match"] = sorted(sample["extra_logs"]) == healthy_keys and rest["done"] is True

    # verl: a trajectory that starts now (kill: open fails; expire: a new session works).
    if how == "kill":
        out["verl_failed"] = asyncio.run(verl_trajectory(loop_cls, tools, interaction, reward, task, turns))
    if how == "expire":
        out["open_after"] = open_sessions()


def scenario_limit():
    """429: the server's session cap is full (LIMIT sessions held); every adapter fails the episode cleanly, then recovers."""
    task = next(iter(TRAJECTORIES))
    client = rubricate_env.EnvClient(retries=0)
    held = []
    factory = trl_factory()  # the probe fits while the server is below its cap
    agent = load_openrlhf_agent()
    executor = agent.AgentExecutor()
    tools, interaction, loop_cls, reward, _ = load_verl()
    while True:
        try:
            held.append(client.open(task_id=task)["session_id"])
        except rubricate_env.RubricateEnvError as e:
            out["cap_status"] = e.status
            break
    env = factory()
    out["trl_reset"] = env.reset(task_id=task)
    out["trl_reward"] = env.get_reward() if hasattr(env, "get_reward") else rubricate_env.completion_reward([""], environments=[env])[0]
    sample = asyncio.run(executor.execute(task, [hermes(t) for t in TRAJECTORIES[task]], 100_000))
    out["openrlhf_limited"] = sample
    out["verl_limited"] = asyncio.run(verl_trajectory(loop_cls, tools, interaction, reward, task, TRAJECTORIES[task]))
    for sid in held:
        client.close(sid)
    healthy = asyncio.run(executor.execute(task, [hermes(t) for t in TRAJECTORIES[task]], 100_000))
    openrlhf_batch([sample, healthy])
    out["openrlhf_recovered"] = healthy
    out["open_after"] = open_sessions()


# ---------------- verifiers (classic API) ----------------
def install_verifiers():
    """`verifiers` as the adapter uses it: Error/InfraError, @cleanup, Rubric, MultiTurnEnv.rollout, load_environment.

    Contract (verifiers a60a606, legacy/): load_environment imports env_id with "-" -> "_" and calls
    its load_environment(**env_args); MultiTurnEnv.rollout: init_state, setup_state (vf.Error ->
    state["error"]), then while no stop condition (has_error, max_turns_reached,
    has_final_env_response): get_prompt_messages (env_response after the first turn; skip the model
    once final_env_response is set), model call, trajectory step; vf.Error -> state["error"]; the
    @cleanup methods always run. Rubric funcs get the kwargs their signature names; exception -> 0.0.
    """
    vf = types.ModuleType("verifiers")

    class Error(Exception):
        pass

    class InfraError(Error):
        pass

    def cleanup(func=None, priority=0, stage="rollout"):
        def deco(f):
            f.cleanup, f.cleanup_priority, f.cleanup_stage = True, priority, stage
            return f

        return deco if func is None else deco(func)

    class Rubric:
        def __init__(self, funcs=None, weights=None, **kwargs):
            self.funcs, self.weights = list(funcs or []), list(weights or [1.0] * len(funcs or []))

        async def score(self, state):
            metrics, reward = {}, 0.0
            for f, w in zip(self.funcs, self.weights):
                params = inspect.signature(f).parameters
                args = {k: state.get(k) for k in ("prompt", "completion", "answer", "info", "task") if k in params}
                if "state" in params:
                    args["state"] = state
                try:
                    value = float(await f(**args))
                except Exception:
                    value = 0.0
                metrics[f.__name__] = value
                reward += w * value
            state["reward"], state["metrics"] = reward, metrics

    class Environment:
        def __init__(self, dataset=None, eval_dataset=None, system_prompt=None, few_shot=None, parser=None, rubric=None, sampling_args=None, tool_defs=None, env_id=None, env_args=None, **kwargs):
            check(not kwargs, f"unknown Environment arguments {kwargs}")
            self.dataset, self.rubric, self.tool_defs = dataset, rubric or Rubric(), tool_defs
            for t in tool_defs or []:
                check(set(t) <= {"name", "description", "parameters", "strict"} and isinstance(t["description"], str), f"Tool {t}")
            self.env_id, self.env_args = env_id or "", env_args or {}
            self._cleanup_handlers = [getattr(self, n) for n in dir(self) if getattr(getattr(self, n, None), "cleanup", False) is True]

    class MultiTurnEnv(Environment):
        def __init__(self, max_turns=-1, timeout_seconds=None, **kwargs):
            super().__init__(**kwargs)
            self.max_turns = max_turns

        async def setup_state(self, state, **kwargs):
            return state

        async def is_completed(self, state):
            return state.get("error") is not None or (self.max_turns > 0 and len(state["trajectory"]) >= self.max_turns) or state.get("final_env_response") is not None

        async def rollout(self, row, model):
            info = row["info"]
            state = {"prompt": row["prompt"], "answer": row["answer"], "info": json.loads(info) if isinstance(info, str) else info, "task": row["task"], "trajectory": []}
            try:
                got = await self.setup_state(state)
                state = got if got is not None else state
            except Error as e:
                state["error"] = e
            try:
                while not await self.is_completed(state):
                    try:
                        if not state["trajectory"]:
                            messages = state["prompt"]
                        else:
                            prev = state["trajectory"][-1]
                            messages = prev["prompt"] + prev["completion"]
                            messages = messages + await self.env_response(messages, state)
                        if state.get("final_env_response") is not None:
                            continue
                        completion = [model(messages, state)]
                        state["trajectory"].append({"prompt": messages, "completion": completion})
                    except Error as e:
                        state["error"] = e
            finally:
                for handler in self._cleanup_handlers:
                    await handler(state)
            await self.rubric.score(state)
            return state

    def load_environment(env_id, **env_args):
        module = importlib.import_module(env_id.replace("-", "_").split("/")[-1])
        try:
            env = module.load_environment(**env_args)
        except ImportError:
            raise
        except Exception as e:
            raise RuntimeError(f"Failed to load environment '{env_id}': {e}") from e
        env.env_id, env.env_args = env.env_id or env_id, env.env_args or env_args
        return env

    vf.Error, vf.InfraError, vf.cleanup, vf.Rubric, vf.Environment, vf.MultiTurnEnv, vf.load_environment = Error, InfraError, cleanup, Rubric, Environment, MultiTurnEnv, load_environment
    sys.modules["verifiers"] = vf
    return vf


class Msg:
    """A pydantic-style message (attributes, not keys), as verifiers' AssistantMessage."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def scripted_model(turns):
    def model(messages, state):
        turn = turns[len(state["trajectory"])] if len(state["trajectory"]) < len(turns) else {"text": "I am done."}
        calls = [Msg(id=f"call_{i}", name=c["name"], arguments=json.dumps(c["arguments"])) for i, c in enumerate(turn.get("calls", []))]
        return Msg(role="assistant", content=turn.get("text", ""), tool_calls=calls or None)

    return model


def scenario_verifiers():
    vf = install_verifiers()
    env = vf.load_environment("rubricate-verifiers", url=URL, task_ids=list(TRAJECTORIES))
    check(env.env_id == "rubricate-verifiers", "env_id set by the loader")
    rows = {json.loads(r["info"])["task_id"]: r for r in env.dataset}

    async def play_all(tasks, **over):
        return await asyncio.gather(*[env.rollout(rows[t], scripted_model(TRAJECTORIES[t])) for t in tasks])

    states = asyncio.run(play_all(list(TRAJECTORIES)))
    out["verifiers"] = {t: s["metrics"]["rubricate_reward"] for t, s in zip(TRAJECTORIES, states)}
    out["verifiers_errors"] = [s["metrics"]["rubricate_error"] for s in states]
    out["verifiers_prompt_roles"] = [m["role"] for m in states[0]["prompt"]]
    many = [list(TRAJECTORIES)[i % len(TRAJECTORIES)] for i in range(MANY)]
    out["verifiers_64"] = [s["metrics"]["rubricate_reward"] for s in asyncio.run(play_all(many))]
    out["tasks_64"] = many
    # All task_index rows (no task_ids): one per task of the server's environment.
    out["verifiers_rows"] = len(vf.load_environment("rubricate-verifiers", url=URL).dataset)

    # verifiers stops at max_turns: the cleanup scores the session as it stands and closes it.
    long_task = max(TRAJECTORIES, key=lambda t: len(TRAJECTORIES[t]))
    cut_env = vf.load_environment("rubricate-verifiers", url=URL, task_ids=[long_task], max_turns=1)
    cut = asyncio.run(cut_env.rollout(cut_env.dataset[0], scripted_model(TRAJECTORIES[long_task])))
    out["verifiers_cut"] = cut["metrics"]

    # The session expires under the rollout: vf.InfraError -> state["error"], fallback reward, flagged.
    def expiring(turns):
        inner = scripted_model(turns)

        def model(messages, state):
            if state["trajectory"] and state.get("rubricate_session"):
                http("DELETE", f"/v1/sessions/{state['rubricate_session']}")
            return inner(messages, state)

        return model

    failed = asyncio.run(env.rollout(rows[long_task], expiring(TRAJECTORIES[long_task])))
    out["verifiers_failed"] = {"metrics": failed["metrics"], "error": type(failed.get("error")).__name__}
    out["open_after"] = open_sessions()


SCENARIOS = {"play": scenario_play, "verifiers": scenario_verifiers, "cut": scenario_cut, "fail": scenario_fail, "limit": scenario_limit}


def loaded_by_a_scenario(module):
    """An adapter (a file of examples/trainers) or a trainer's stand-in (a module made here, without a file)."""
    path = getattr(module, "__file__", None)
    return path.startswith(trainers + os.sep) if path else getattr(module, "__spec__", None) is None


def main(specs):
    """Runs `<scenario>[:<FAIL>][=<url>]` specs in order; prints {spec name: output, or {"error": traceback}}.

    Each scenario plays against its own server (`=<url>`, else $RUBRICATE_ENV_URL), with the
    adapters and trainer stand-ins it loaded dropped before the next one, as a fresh interpreter
    would start; only torch and the TRL adapter, imported above, are shared. A scenario that
    raises is reported and the next one runs. Each scenario's stderr follows a `--- scenario
    <name>` line.
    """

    def set_url(url):
        global URL
        URL = url

    run_scenarios(specs, SCENARIOS, out, URL, set_url, loaded_by_a_scenario)


main(sys.argv[1:])
