"""verifiers reward functions backed by `rubricate serve` (stdlib only; needs rubricate_client.py).

    import verifiers as vf
    from verifiers_reward import RubricateReward

    rubricate = RubricateReward("http://127.0.0.1:8000")
    rubric = vf.Rubric(funcs=[rubricate.rubricate, rubricate.rubricate_error], weights=[1.0, 0.0])

verifiers' `Rubric` calls each function with the arguments its signature names (`prompt`,
`completion`, `answer`, `state`, `info`, ...), awaits it if it is a coroutine, and turns ANY
exception into a reward of 0.0 (only a logged error). An exception would therefore be a silent
0.0, so these functions never raise for a judge failure. Instead `rubricate` returns `fallback`
(default 0.0), logs a warning naming the reason, and records it in `state["rubricate_error"]`;
`rubricate_error` (weight 0: a metric) reports 1.0 for such a rollout, so the failure is in
`state["metrics"]`, in every eval summary and in the trainer's logs next to the reward.

The sample sent: the completion's assistant text as the response, the last user message of the
prompt in the server's prompt input, `answer` in its label input, and the entries of `info` named
like rubric inputs. Requests go out from a thread, so a group's rollouts are scored concurrently.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Dict, Optional

from rubricate_client import RubricateClient, RubricateError, message_text

__all__ = ["RubricateReward"]

log = logging.getLogger("rubricate")


class RubricateReward:
    """A reward function and an error metric for a verifiers `Rubric`, scored by a rubricate server."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, fallback: float = 0.0, **client_options: Any) -> None:
        self.client = RubricateClient(url, token, **client_options)
        self.fallback = float(fallback)

    def sample(self, prompt: Any, completion: Any, answer: Any = None, info: Any = None) -> Dict[str, Any]:
        """The sample one rollout sends: rubric inputs built from its prompt, completion, answer and info."""
        server = self.client.info()
        inputs = set(server.get("inputs", []))
        row: Dict[str, Any] = {}
        if isinstance(info, dict):
            row.update({k: v for k, v in info.items() if k in inputs})
        label = server.get("label_field")
        if label and answer not in (None, "") and label not in row:
            row[label] = answer if isinstance(answer, str) else str(answer)
        prompt_field = server.get("prompt_field")
        if prompt_field and prompt_field not in row:
            row[prompt_field] = message_text(prompt, "user")
        row[server.get("response_field", "response")] = message_text(completion, "assistant")
        return row

    async def rubricate(self, prompt: Any, completion: Any, answer: Any = None, state: Any = None, info: Any = None) -> float:
        """The rubric reward of one rollout, or `fallback` with the failure recorded in `state`."""
        try:
            rewards, errors = await asyncio.to_thread(self.client.rewards, [self.sample(prompt, completion, answer, info)])
            reward, error = rewards[0], errors[0]
        except RubricateError as e:  # the server refused the request or stayed unreachable
            reward, error = None, str(e)
        if reward is None:
            log.warning("rubricate: rollout scored %s because it has no reward: %s", self.fallback, error)
            if isinstance(state, dict):
                state["rubricate_error"] = error or "no reward"
            return self.fallback
        if isinstance(state, dict):
            state.pop("rubricate_error", None)
        return float(reward)

    def rubricate_error(self, state: Any = None) -> float:
        """1.0 when `rubricate` had to use the fallback for this rollout (add with weight 0)."""
        return 1.0 if isinstance(state, dict) and state.get("rubricate_error") else 0.0
