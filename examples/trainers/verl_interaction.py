"""verl multi-turn interaction over a rubricate environment (``rubricate serve --env env.yaml``).

    # interaction_config.yaml (verl: actor_rollout_ref.rollout.multi_turn.interaction_config_path)
    interaction:
      - name: rubricate
        class_name: verl_interaction.RubricateInteraction   # this folder on PYTHONPATH
        config: { url: "http://127.0.0.1:8000" }            # or $RUBRICATE_ENV_URL
    # each row's extra_info.interaction_kwargs: {"name": "rubricate", "task_id": "..."}
    # environments with tools: also tool_config_path (verl_tools.py writes it) and, so that
    # sessions end when verl cuts an episode, the agent loop in verl_agent_loop.py.

verl's contract (volcengine/verl b178a3c, ``interactions/utils/interaction_registry.py`` and
``experimental/agent_loop/tool_agent_loop.py``): the class is imported by module name
(``importlib.util.find_spec``) and built with ``config=dict`` (``name`` injected). Per trajectory
``ToolAgentLoop.run`` calls ``start_interaction(request_id, **interaction_kwargs)`` (a fresh
``uuid4().hex``), then after every assistant turn WITHOUT tool calls (turns with calls go to
verl's tool registry) ``generate_response(request_id, messages, **interaction_kwargs)`` ->
``(should_terminate, response_text, turn_score, metrics)``. verl appends ``turn_score`` to
``turn_scores`` only when it is not None, ignores ``metrics``, and passes ``turn_scores`` to the
reward function as ``extra_info["turn_scores"]`` (``verl_reward.compute_score`` reads it). An
exception in either method fails the agent loop, so only a dataset bug (a task the environment
lacks, a 400) raises here; any other failure ends the trajectory with no turn score, which
``compute_score`` turns into ``on_error`` with ``rubricate_error`` 1.0. verl never calls
``finalize_interaction`` and stops at ``max_assistant_turns`` / ``response_length`` without a
call: ``verl_agent_loop.RubricateAgentLoop`` finishes those sessions.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rubricate_env import VERL_LOCK, VERL_SESSIONS, EnvClient, RubricateEnvError, log, reply_text, strip_end_markers, task_ref  # noqa: E402

try:
    from verl.interactions.base import BaseInteraction
except ImportError:  # usable (and testable) without verl installed
    class BaseInteraction:  # type: ignore[no-redef]
        def __init__(self, config: dict):
            self.config = config
            self.name = config.get("name", "interaction_agent")

# Set by verl_agent_loop.RubricateAgentLoop around one trajectory: the request ids it started.
import contextvars  # noqa: E402

STARTED: contextvars.ContextVar = contextvars.ContextVar("rubricate_started", default=None)


class RubricateInteraction(BaseInteraction):
    def __init__(self, config: dict):
        super().__init__(config)
        self.client = EnvClient(config.get("url"), config.get("token"))

    async def start_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> str:
        ref = task_ref(kwargs)
        try:
            opened = await asyncio.to_thread(self.client.open, **ref)
        except RubricateEnvError as e:
            if e.status == 400:
                raise  # interaction_kwargs name no task of this environment: a dataset bug
            log.warning("rubricate: opening a session for %s failed; the trajectory gets no turn score: %s", ref, e)
            opened = None
        instance_id = instance_id or (opened["session_id"] if opened else os.urandom(8).hex())
        with VERL_LOCK:
            VERL_SESSIONS[instance_id] = {"session_id": opened["session_id"], "done": False} if opened else {"session_id": None, "done": True}
        started = STARTED.get()
        if started is not None:
            started.append((self, instance_id))
        return instance_id

    async def generate_response(self, instance_id: str, messages: list, **kwargs: Any) -> tuple:
        entry = VERL_SESSIONS.get(instance_id)
        if entry is None or entry["session_id"] is None:
            await self.finalize_interaction(instance_id)
            return True, "", None, {"rubricate_error": 1.0}
        content = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), "")
        reply = ""
        if not entry["done"]:  # a tool (submit) may have ended the episode already
            try:
                stepped = await asyncio.to_thread(self.client.step, entry["session_id"], strip_end_markers(content))
            except RubricateEnvError as e:
                log.warning("rubricate: step failed, ending the trajectory without a turn score: %s", e)
                await self.finalize_interaction(instance_id)
                return True, "", None, {"rubricate_error": 1.0}
            reply = reply_text(stepped)
            if not stepped["done"]:
                return False, reply, None, {}
        reward = await self.end_episode(instance_id)
        return True, reply, reward, {"rubricate_error": 0.0 if reward is not None else 1.0}

    async def end_episode(self, instance_id: str) -> Optional[float]:
        """Scores the trajectory's session and closes it: the reward, or None (logged) when there is none. Idempotent."""
        entry = VERL_SESSIONS.get(instance_id)
        if entry is None or entry["session_id"] is None:
            await self.finalize_interaction(instance_id)
            return None
        try:
            finished = await asyncio.to_thread(self.client.finish, entry["session_id"])
            return self.client.reward_of(finished)
        except RubricateEnvError as e:
            self.client.failures += 1
            log.warning("rubricate: finish failed, the trajectory gets no turn score: %s", e)
            return None
        finally:
            await self.finalize_interaction(instance_id)

    async def calculate_score(self, instance_id: Optional[str] = None, **kwargs: Any) -> Optional[float]:
        return await self.end_episode(instance_id) if instance_id else None

    async def finalize_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> None:
        with VERL_LOCK:
            entry = VERL_SESSIONS.pop(instance_id, None) if instance_id else None
        if entry is not None and entry["session_id"] is not None:
            await asyncio.to_thread(self.client.close, entry["session_id"])
