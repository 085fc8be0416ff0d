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

What OpenRLHF does with the results (read from OpenRLHF 3c3be62, ``openrlhf/utils/agent.py``
and ``trainer/ppo_utils/experience.py``):

* ``MultiTurnAgentExecutor.execute`` calls ``await reset({"observation", "label"})`` once, then
  per turn generates with ``sampling_params.max_tokens = max_length - len(tokens)`` and calls
  ``await step({"observation_text", "action_text", "label", "sampling_params"})``; it reads
  ``step_result["rewards"].item()`` (a tensor), ``"scores"``, ``"environment_feedback"`` (text it
  tokenizes and appends after the action's tokens), ``"done"`` and ``"extra_logs"`` of the LAST
  step. When the budget runs out it stops without another call: no end-of-episode hook exists.
  An exception in ``reset``/``step`` ends the whole generation.
* The samples generator makes ``torch.tensor([value])`` of rewards, scores and every
  ``extra_logs`` value, and ``split_experience_batch`` raises when a key is missing from some
  sample ("Size of info[k] (7) does not match batch_size (8)"). So every sample, finished or
  not, carries the same keys (``episode_logs``: ``rubricate_error``, ``rubricate_unfinished``,
  ``rubricate/<criterion>``), all Python floats; a sample the server could not score gets
  ``RUBRICATE_FALLBACK_REWARD`` (default 0.0) with ``rubricate_error`` 1.0 and a log line.
* End tokens: vLLM's ``text`` leaves the stop token out while its token ids keep it, and
  OpenRLHF's own ``agent_func.py`` starts its feedback after it ("\n\nHuman: ..."). So the
  default ``RUBRICATE_TURN_TEMPLATE`` does not repeat ``<|im_end|>``, and an end marker the text
  does carry (``skip_special_tokens=False``) is cut before the turn reaches the environment.
* Sessions are closed when the environment ends the episode, when a call fails, and when OpenRLHF
  drops the agent instance after a budget stop (the instance's finalizer closes it).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # OpenRLHF loads this file by path

from rubricate_env import EnvClient, RubricateEnvError, describe_env, episode_logs, log, reply_text, strip_end_markers  # noqa: E402

try:  # inside OpenRLHF
    import torch
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor
except ImportError as e:  # pragma: no cover - only without OpenRLHF installed
    raise ImportError(f"openrlhf_agent.py runs inside OpenRLHF (needs openrlhf and torch): {e}") from e

FALLBACK = float(os.environ.get("RUBRICATE_FALLBACK_REWARD", "0.0"))
TURN_TEMPLATE = os.environ.get("RUBRICATE_TURN_TEMPLATE", "\n<|im_start|>user\n{message}<|im_end|>\n<|im_start|>assistant\n")
# Tool results inside that turn, as Hermes / Qwen templates render them.
TOOL_TEMPLATE = os.environ.get("RUBRICATE_TOOL_TEMPLATE", "<tool_response>\n{content}\n</tool_response>")
_client = EnvClient()
_criteria: Optional[list] = None
_criteria_lock = threading.Lock()


def criteria() -> list:
    """The rubric's criterion ids (the extra_logs keys), read once from the server."""
    global _criteria
    with _criteria_lock:
        if _criteria is None:
            _criteria = list(describe_env(_client).get("criteria", []))
        return _criteria


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
    return (FALLBACK if reward is None else reward), episode_logs(criteria(), finished, error=reward is None)


def _failed(reason: str) -> tuple[float, dict]:
    _client.failures += 1
    log.warning("rubricate: no reward for this sample (%s); it gets the fallback %s", reason, FALLBACK)
    try:
        keys = criteria()
    except RubricateEnvError:  # never reached the server at all (rollout_run_agent's first call): no sample has other keys
        keys = []
    return FALLBACK, episode_logs(keys, error=True)


def _close_later(session_id: str) -> None:
    # From a finalizer: no event loop to await on, and it must not block OpenRLHF's loop.
    threading.Thread(target=_client.close, args=(session_id,), daemon=True).start()


class AgentInstance(AgentInstanceBase):
    def __init__(self, *args: Any, **kwargs: Any):
        self.session_id: Optional[str] = None
        self.failure: Optional[str] = None

    async def reset(self, states: dict, **kwargs: Any) -> dict:
        criteria()  # the log keys, before anything can fail
        try:
            # Blocking HTTP runs in a thread: OpenRLHF drives many agents on one event loop.
            opened = await asyncio.to_thread(_client.open, **task_of(states.get("label")))
            self.session_id = opened["session_id"]
        except RubricateEnvError as e:
            if e.status == 400:
                raise  # the label names no task of this environment: a dataset bug
            self.failure = f"open: {e}"
        # The policy sees the dataset's prompt (OpenRLHF tokenizes it); build the dataset from the
        # environment's tasks so it matches the session's first message.
        return {"observation": states["observation"]}

    def _result(self, reward: float, logs: dict, done: bool, feedback: str, states: dict) -> dict:
        return {"rewards": torch.tensor(reward), "scores": torch.tensor(reward), "environment_feedback": feedback, "done": done, "sampling_params": states.get("sampling_params"), "extra_logs": logs}

    async def step(self, states: dict, **kwargs: Any) -> dict:
        if self.session_id is None:
            return self._result(*_failed(self.failure or "no session"), True, "", states)
        action = strip_end_markers(states["action_text"])
        try:
            stepped = await asyncio.to_thread(_client.step, self.session_id, action)
        except RubricateEnvError as e:
            await self._close()
            return self._result(*_failed(f"step: {e}"), True, "", states)
        if not stepped["done"]:
            logs = episode_logs(criteria(), unfinished=True)
            return self._result(0.0, logs, False, TURN_TEMPLATE.format(message=reply_text(stepped, TOOL_TEMPLATE)), states)
        try:
            reward, logs = _scored(await asyncio.to_thread(_client.finish, self.session_id))
        except RubricateEnvError as e:
            reward, logs = _failed(f"finish: {e}")
        finally:
            await self._close()
        return self._result(reward, logs, True, "", states)

    async def _close(self) -> None:
        session, self.session_id = self.session_id, None
        if session is not None:
            await asyncio.to_thread(_client.close, session)

    def __del__(self) -> None:
        # OpenRLHF stopped the episode (token budget) without telling us: free the server's session.
        if getattr(self, "session_id", None) is not None:
            _close_later(self.session_id)


class AgentExecutor(MultiTurnAgentExecutor):
    def __init__(self) -> None:
        criteria()  # an unreachable server stops the run at start, not mid-batch
        super().__init__(AgentInstance)


async def rollout_run_agent(executor: Any, prompt: str, label: Any, session_id: str) -> dict:
    """``run_agent`` for OpenRLHF's OpenAI-server executor: the environment plays against its endpoint.

    That executor's ``/v1/chat/completions`` reads ``max_tokens`` (default: its sampling params',
    None unless set, and then ``min(None, remaining)`` fails), ``logprobs`` (bool) and
    ``top_logprobs``, and records a token trace per ``session_id``; ``_stitch_session`` fills
    ``rollout_log_probs`` from the traces when ``sampling_params.logprobs`` is set. Its answers are
    vLLM's raw text (no tool parser): the server reads the ``<tool_call>`` blocks in them, runs the
    tools, and sends those turns back as written, so each call extends the session's tokens.
    """
    sp = executor.sampling_params
    extra: dict = {"session_id": session_id}
    if getattr(sp, "logprobs", None) is not None:
        extra.update(logprobs=True, top_logprobs=max(1, int(sp.logprobs)))
    max_tokens = getattr(sp, "max_tokens", None)
    if max_tokens is None:
        # The server caps it at what is left of max_length; an absent value would reach min(None, …).
        max_tokens = int(getattr(executor, "max_length", 0) or 0) or None
    policy = {"base_url": str(executor.client.base_url).rstrip("/"), "model": executor.model_name, "extra_body": extra}
    for key, value in (("temperature", getattr(sp, "temperature", None)), ("top_p", getattr(sp, "top_p", None)), ("max_tokens", max_tokens)):
        if value is not None:
            policy[key] = value
    try:
        answer = await asyncio.to_thread(lambda: _client.rollouts(policy, k=1, **task_of(label)))
        reward, logs = _scored(answer["rollouts"][0])
    except RubricateEnvError as e:
        if e.status == 400 and e.code == "BAD_INPUT":
            raise
        reward, logs = _failed(f"rollout: {e}")
    return {"reward": reward, "scores": reward, "extra_logs": logs}
