"""OpenRLHF agent function over a rubricate environment (``rubricate serve --env env.yaml``).

    python -m openrlhf.cli.train_ppo_ray ... --train.agent_func_path examples/trainers/openrlhf_agent.py
    # each dataset label names the task: its id, {"task_id": ...} or {"task_index": ...}

OpenRLHF loads this file by path and builds ``AgentExecutor()``. Two executors:

* ``AgentExecutor`` (default): OpenRLHF's ``MultiTurnAgentExecutor`` generates each turn with
  its vLLM engine; ``AgentInstance.step`` sends the turn to the environment and returns its reply
  wrapped in the model's chat turn markers (``RUBRICATE_TURN_TEMPLATE``, ChatML by default).
* ``rollout_run_agent(executor, prompt, label, session_id)``: for OpenRLHF's OpenAI-server
  executor (``examples/python/agent_func_openai_server_executor.py``): assign it as that class's
  ``run_agent`` so the environment plays the episode against the executor's own endpoint, with
  ``extra_body={"session_id": ...}`` on every policy call so token traces are recorded.

What OpenRLHF does with the results (its samples_generator / MultiTurnAgentExecutor): it calls
``step_result["rewards"].item()``, puts ``reward``/``scores`` into ``torch.tensor([value])`` and
each ``extra_logs`` value into ``torch.tensor([value])``. So every number here is a Python float
(an int would make an int64 tensor, None cannot become one): a sample the server could not score
gets ``RUBRICATE_FALLBACK_REWARD`` (default 0.0) and ``extra_logs["rubricate_error"] = 1.0``, and
is logged.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # OpenRLHF loads this file by path

from rubricate_env import EnvClient, RubricateEnvError, log  # noqa: E402

try:  # inside OpenRLHF
    import torch
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor
except ImportError as e:  # pragma: no cover - only without OpenRLHF installed
    raise ImportError(f"openrlhf_agent.py runs inside OpenRLHF (needs openrlhf and torch): {e}") from e

FALLBACK = float(os.environ.get("RUBRICATE_FALLBACK_REWARD", "0.0"))
TURN_TEMPLATE = os.environ.get("RUBRICATE_TURN_TEMPLATE", "<|im_end|>\n<|im_start|>user\n{message}<|im_end|>\n<|im_start|>assistant\n")
_client = EnvClient()


def task_of(label: Any) -> dict:
    """The task a dataset label names: a task id, or JSON with task_id / task_index / task."""
    if isinstance(label, str):
        try:
            parsed = json.loads(label)
        except ValueError:
            return {"task_id": label}
        label = parsed
    if isinstance(label, dict):
        ref = {k: label[k] for k in ("task_id", "task_index", "task") if k in label}
        if len(ref) == 1:
            return ref
    if isinstance(label, (int, float)) and not isinstance(label, bool):
        return {"task_id": str(label)}
    raise ValueError(f"rubricate: label {label!r} names no task (a task id, or JSON with task_id / task_index / task)")


def _scored(finished: dict) -> tuple[float, dict]:
    reward = _client.reward_of(finished)
    logs = {"rubricate_error": 0.0 if reward is not None else 1.0}
    for v in finished.get("verdicts", []):
        status = v.get("status")
        logs[f"rubricate/{v.get('id')}"] = 1.0 if status == "met" else 0.0
    return (FALLBACK if reward is None else reward), logs


class AgentInstance(AgentInstanceBase):
    def __init__(self, *args: Any, **kwargs: Any):
        self.session_id = None

    async def reset(self, states: dict, **kwargs: Any) -> dict:
        # Blocking HTTP runs in a thread: OpenRLHF drives many agents on one event loop.
        opened = await asyncio.to_thread(_client.open, **task_of(states.get("label")))
        self.session_id = opened["session_id"]
        # The policy sees the dataset's prompt (OpenRLHF tokenizes it); build the dataset from the
        # environment's tasks so it matches the session's first message.
        return {"observation": states["observation"]}

    async def step(self, states: dict, **kwargs: Any) -> dict:
        try:
            result = await asyncio.to_thread(_client.step, self.session_id, states["action_text"])
            done = bool(result["done"])
            reply = "".join(m.get("content") or "" for m in result.get("messages", []) if m.get("role") in ("user", "tool"))
        except RubricateEnvError as e:
            log.warning("rubricate: step failed, ending the episode: %s", e)
            done, reply = True, ""
        if not done:
            return {"rewards": torch.tensor(0.0), "scores": torch.tensor(0.0), "environment_feedback": TURN_TEMPLATE.format(message=reply), "done": False, "sampling_params": states.get("sampling_params"), "extra_logs": {}}
        try:
            reward, logs = _scored(await asyncio.to_thread(_client.finish, self.session_id))
        except RubricateEnvError as e:
            log.warning("rubricate: finish failed: %s", e)
            reward, logs = FALLBACK, {"rubricate_error": 1.0}
        await asyncio.to_thread(_client.close, self.session_id)
        return {"rewards": torch.tensor(reward), "scores": torch.tensor(reward), "environment_feedback": "", "done": True, "sampling_params": states.get("sampling_params"), "extra_logs": logs}


class AgentExecutor(MultiTurnAgentExecutor):
    def __init__(self) -> None:
        super().__init__(AgentInstance)


async def rollout_run_agent(executor: Any, prompt: str, label: Any, session_id: str) -> dict:
    """``run_agent`` for OpenRLHF's OpenAI-server executor: the environment plays against its endpoint."""
    sp = executor.sampling_params
    policy = {
        "base_url": str(executor.client.base_url).rstrip("/"),
        "model": executor.model_name,
        "extra_body": {"session_id": session_id},
    }
    for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("max_tokens", "max_tokens")):
        value = getattr(sp, theirs, None)
        if value is not None:
            policy[ours] = value
    try:
        answer = await asyncio.to_thread(lambda: _client.rollouts(policy, k=1, **task_of(label)))
        reward, logs = _scored(answer["rollouts"][0])
    except RubricateEnvError as e:
        log.warning("rubricate: rollout failed: %s", e)
        reward, logs = FALLBACK, {"rubricate_error": 1.0}
    return {"reward": reward, "scores": reward, "extra_logs": logs}
