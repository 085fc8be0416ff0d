"""verl multi-turn interaction over a rubricate environment (``rubricate serve --env env.yaml``).

    # interaction_config.yaml (verl: actor_rollout_ref.rollout.multi_turn.interaction_config_path)
    interaction:
      - name: rubricate
        class_name: verl_interaction.RubricateInteraction   # this folder on PYTHONPATH
        config: { url: "http://127.0.0.1:8000" }            # or $RUBRICATE_ENV_URL
    # each row's extra_info.interaction_kwargs: {"name": "rubricate", "task_id": "..."}

verl imports the class by module name (importlib.util.find_spec), builds it with
``config=...``, then per trajectory: ``start_interaction(request_id, **interaction_kwargs)``,
``generate_response(request_id, messages, **interaction_kwargs)`` -> (should_terminate,
response_text, turn_score, metrics) after each assistant turn. A turn score of None is not
recorded (verl checks ``if reward is not None``); the episode's reward is the score of the turn
that ends it. verl's tool agent loop never calls ``finalize_interaction``: idle sessions expire
on the server.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rubricate_env import EnvClient, RubricateEnvError, log, task_ref  # noqa: E402

try:
    from verl.interactions.base import BaseInteraction
except ImportError:  # usable (and testable) without verl installed
    class BaseInteraction:  # type: ignore[no-redef]
        def __init__(self, config: dict):
            self.config = config
            self.name = config.get("name", "interaction_agent")


class RubricateInteraction(BaseInteraction):
    def __init__(self, config: dict):
        super().__init__(config)
        self.client = EnvClient(config.get("url"), config.get("token"))
        self.sessions: dict = {}

    async def start_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> str:
        opened = await asyncio.to_thread(lambda: self.client.open(**task_ref(kwargs)))
        instance_id = instance_id or opened["session_id"]
        self.sessions[instance_id] = opened["session_id"]
        return instance_id

    async def generate_response(self, instance_id: str, messages: list, **kwargs: Any) -> tuple:
        session = self.sessions[instance_id]
        content = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), "")
        try:
            result = await asyncio.to_thread(self.client.step, session, content)
        except RubricateEnvError as e:
            log.warning("rubricate: step failed, ending the trajectory: %s", e)
            return True, "", None, {"rubricate_error": 1.0}
        reply = "".join(m.get("content") or "" for m in result.get("messages", []) if m.get("role") == "user")
        if not result["done"]:
            return False, reply, None, {}
        finished = await asyncio.to_thread(self.client.finish, session)
        reward = self.client.reward_of(finished)
        await self.finalize_interaction(instance_id)
        return True, reply, reward, {"rubricate_error": 0.0 if reward is not None else 1.0}

    async def calculate_score(self, instance_id: Optional[str] = None, **kwargs: Any) -> Optional[float]:
        session = self.sessions.get(instance_id) if instance_id else None
        if session is None:
            return None
        return self.client.reward_of(await asyncio.to_thread(self.client.finish, session))

    async def finalize_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> None:
        session = self.sessions.pop(instance_id, None) if instance_id else None
        if session is not None:
            await asyncio.to_thread(self.client.close, session)
