"""A verifiers environment that plays a rubricate environment (``rubricate serve --env env.yaml``).

    # this folder on PYTHONPATH (or the file copied into an environment package)
    import verifiers as vf
    env = vf.load_environment("rubricate-verifiers", url="http://127.0.0.1:8000")
    # vf-eval rubricate-verifiers -a '{"url": "http://127.0.0.1:8000"}' ...

The classic verifiers API (``verifiers.legacy``, what ``import verifiers as vf`` serves; read
from PrimeIntellect-ai/verifiers a60a606, ``legacy/utils/env_utils.py``,
``legacy/envs/environment.py``, ``legacy/envs/multiturn_env.py``, ``legacy/envs/tool_env.py``):

* ``vf.load_environment(env_id, **env_args)`` imports the module ``env_id`` with "-" -> "_" (the
  last path part), calls its ``load_environment(**env_args)`` and sets ``env_id``/``env_args`` on
  the result; any exception but ImportError becomes RuntimeError("Failed to load environment").
* ``MultiTurnEnv.rollout``: ``init_state`` (the row's ``prompt``, ``answer``, ``info``), then
  ``setup_state(state)``; while no ``@vf.stop`` condition holds (``has_error``, ``max_turns``
  reached, ``final_env_response`` set, ...): ``get_prompt_messages`` (which calls
  ``env_response(messages, state)`` after the first turn) and a model call. Only ``vf.Error``
  is caught (into ``state["error"]``, which stops the rollout); ``@vf.cleanup`` methods always
  run. Messages are pydantic models (``AssistantMessage.tool_calls``: ``id``, ``name``,
  ``arguments`` JSON text) or dicts.
* The rubric calls each function with the arguments its signature names among ``prompt``,
  ``completion``, ``answer``, ``state``, ``info``, ``task``; an exception becomes 0.0 with a log
  line, so ``rubricate_reward`` never raises: a rollout without a reward gets ``fallback`` and
  the weight-0 metric ``rubricate_error`` is 1.0 for it.

Each dataset row names a task (``info``: ``{"task_index": i}`` for every task of the server's
environment, or the ``task_ids`` given); ``setup_state`` opens its session and puts the
session's system prompt and first message in ``state["prompt"]``; every later turn goes to the
session (tool calls included) and its messages come back; when the environment ends the episode
it is scored and ``final_env_response`` stops the rollout. A rollout verifiers ends itself
(``max_turns``, a timeout, an error) is scored as it stands or flagged, and its session closed,
by the cleanup. The ``verifiers.v1`` API (tasksets, envs, harnesses; what prime-rl runs) has its
own adapter: ``rubricate_v1.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verifiers as vf  # noqa: E402

from rubricate_env import EnvClient, RubricateEnvError, describe_env, log, strip_end_markers  # noqa: E402


def _field(message: Any, key: str, default: Any = None) -> Any:
    return message.get(key, default) if isinstance(message, dict) else getattr(message, key, default)


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(_field(p, "text", "") or "" for p in content)


def _wire_calls(message: Any) -> list:
    calls = []
    for call in _field(message, "tool_calls") or []:
        fn = _field(call, "function")  # OpenAI dicts nest name/arguments under "function"
        name = _field(fn, "name") if fn is not None else _field(call, "name")
        args = _field(fn, "arguments") if fn is not None else _field(call, "arguments")
        calls.append({"id": _field(call, "id"), "name": name, "arguments": args if isinstance(args, (str, dict)) else json.dumps(args)})
    return [{k: v for k, v in c.items() if v is not None} for c in calls]


def _dataset(rows: list) -> Any:
    try:
        from datasets import Dataset
    except ImportError:  # verifiers depends on datasets; without it (tests) the rows are the dataset
        return rows
    return Dataset.from_list(rows)


class RubricateEnv(vf.MultiTurnEnv):
    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, task_ids: Optional[list] = None, fallback: float = 0.0, **kwargs: Any):
        self.client = EnvClient(url, token)
        self.fallback = float(fallback)
        described = describe_env(self.client)
        refs = [{"task_id": t} for t in task_ids] if task_ids else [{"task_index": i} for i in range(int(described.get("task_count", 1)))]
        # The prompt is the session's (setup_state); the row only names the task. info as JSON text: a
        # datasets column of dicts with differing keys would not load.
        rows = [{"prompt": [{"role": "user", "content": ""}], "answer": "", "info": json.dumps(ref), "task": described["env"]["id"]} for ref in refs]
        tools = [{"name": t["function"]["name"], "description": t["function"].get("description") or t["function"]["name"], "parameters": t["function"].get("parameters") or {"type": "object", "properties": {}}} for t in described.get("tools", [])]
        rubric = vf.Rubric(funcs=[self.rubricate_reward, self.rubricate_error], weights=[1.0, 0.0])
        kwargs.setdefault("max_turns", int(described.get("max_turns", -1)))
        super().__init__(dataset=kwargs.pop("dataset", None) or _dataset(rows), rubric=rubric, tool_defs=tools or None, **kwargs)

    async def setup_state(self, state: Any, **kwargs: Any) -> Any:
        info = state.get("info") or {}
        if isinstance(info, str):
            info = json.loads(info)
        ref = {k: info[k] for k in ("task_id", "task_index", "task") if k in info}
        try:
            opened = await asyncio.to_thread(self.client.open, **ref)
        except RubricateEnvError as e:
            raise vf.InfraError(f"rubricate: opening a session for {ref} failed: {e}") from e
        state["rubricate_session"] = opened["session_id"]
        prompt = ([{"role": "system", "content": opened["system"]}] if opened.get("system") else []) + list(opened.get("few_shot") or []) + [{"role": m["role"], "content": m["content"]} for m in opened["messages"]]
        state["prompt"] = prompt
        return state

    async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> list:
        try:
            stepped = await self._send(messages[-1], state)
        except RubricateEnvError as e:
            raise vf.InfraError(f"rubricate: step failed: {e}") from e
        out = []
        for m in stepped.get("messages", []):
            if m.get("role") == "tool":
                out.append({"role": "tool", "tool_call_id": m.get("tool_call_id") or "", "content": m.get("content") or ""})
            elif m.get("role") == "user":
                out.append({"role": "user", "content": m.get("content") or ""})
        if stepped.get("done"):
            await self._finish(state)
            state["final_env_response"] = out
        return out

    async def _send(self, message: Any, state: Any) -> dict:
        """One model turn to the session (its text without end markers, its tool calls)."""
        state["rubricate_sent"] = len(state.get("trajectory") or [])
        content, calls = strip_end_markers(_text(_field(message, "content"))), _wire_calls(message)
        return await asyncio.to_thread(self.client.step, state["rubricate_session"], content, calls or None)

    async def _finish(self, state: Any) -> None:
        session = state.pop("rubricate_session", None)
        if session is None:
            return
        try:
            finished = await asyncio.to_thread(self.client.finish, session)
            state["rubricate_reward"] = self.client.reward_of(finished)
            state["rubricate_verdicts"] = {v.get("id"): v.get("status") for v in finished.get("verdicts", [])}
        except RubricateEnvError as e:
            log.warning("rubricate: finish failed: %s", e)
        finally:
            await asyncio.to_thread(self.client.close, session)

    @vf.cleanup
    async def rubricate_close(self, state: Any) -> None:
        """Ends the session however the rollout ended: scored as it stands unless the rollout failed."""
        if state.get("rubricate_session") is None:
            return
        if state.get("error") is not None:
            session = state.pop("rubricate_session")
            await asyncio.to_thread(self.client.close, session)
            return
        # verifiers stopped (max_turns, a timeout) after a model turn it never passed to
        # env_response: the session plays it, as `rubricate eval` plays the turn that hits max_turns.
        trajectory = state.get("trajectory") or []
        if len(trajectory) > state.get("rubricate_sent", 0) and trajectory[-1].get("completion"):
            try:
                await self._send(trajectory[-1]["completion"][-1], state)
            except RubricateEnvError as e:
                log.warning("rubricate: the last turn could not be played: %s", e)
        await self._finish(state)

    async def rubricate_reward(self, state: Any) -> float:
        reward = state.get("rubricate_reward")
        if reward is None:
            log.warning("rubricate: no reward for this rollout (%s); scored %s", state.get("error") or "no score", self.fallback)
            return self.fallback
        return float(reward)

    async def rubricate_error(self, state: Any) -> float:
        return 0.0 if state.get("rubricate_reward") is not None else 1.0


def load_environment(url: Optional[str] = None, token: Optional[str] = None, task_ids: Optional[list] = None, fallback: float = 0.0, **kwargs: Any) -> RubricateEnv:
    """verifiers' entry point: ``vf.load_environment("rubricate-verifiers", url=...)``."""
    return RubricateEnv(url=url, token=token, task_ids=task_ids, fallback=fallback, **kwargs)
