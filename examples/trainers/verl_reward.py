"""verl reward functions backed by `rubricate serve` (stdlib only).

Point verl's custom reward function at this file:

    custom_reward_function.path=examples/trainers/verl_reward.py
    custom_reward_function.name=compute_score_batch      # with reward_model.reward_manager=batch
    # or custom_reward_function.name=compute_score     # one HTTP request per sample (naive manager)
    +custom_reward_function.reward_kwargs.url=http://127.0.0.1:8000

The sample sent for each rollout: the response is `solution_str`; `ground_truth` fills the
label input (`label_field`, default "answer"; a dict ground truth supplies inputs by name);
`extra_info` entries named like rubric inputs are added (e.g. "question").

verl needs a number for every rollout, and its batch manager turns an exception into 0.0 for the
whole batch. So a reward that could not be computed is handled by `on_error`: "raise" (default:
stop rather than train on a made-up number), "nan", or a number you choose deliberately.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Union

from rubricate_client import RubricateClient, RubricateError

__all__ = ["compute_score", "compute_score_batch", "RubricateError"]

_clients: Dict[tuple, RubricateClient] = {}


def _client(url: Optional[str], token: Optional[str]) -> RubricateClient:
    key = (url, token)
    if key not in _clients:
        _clients[key] = RubricateClient(url, token)
    return _clients[key]


def _sample(client: RubricateClient, solution_str: str, ground_truth: Any, extra_info: Any, label_field: str, response_field: Optional[str]) -> Dict[str, Any]:
    info = client.info()
    inputs = set(info.get("inputs", []))
    sample: Dict[str, Any] = {}
    if isinstance(extra_info, dict):
        sample.update({k: v for k, v in extra_info.items() if k in inputs})
    if isinstance(ground_truth, dict):
        sample.update(ground_truth)
    elif ground_truth is not None:
        sample[label_field] = ground_truth if isinstance(ground_truth, str) else str(ground_truth)
    sample[response_field or info.get("response_field", "response")] = solution_str
    return sample


def _resolve(reward: Optional[float], error: Optional[str], on_error: Union[str, float]) -> float:
    if reward is not None:
        return float(reward)
    if on_error == "raise":
        raise RubricateError("rubricate could not compute a reward: %s" % error)
    if on_error == "nan":
        return math.nan
    return float(on_error)


def compute_score(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Any = None,
    url: Optional[str] = None,
    token: Optional[str] = None,
    label_field: str = "answer",
    response_field: Optional[str] = None,
    on_error: Union[str, float] = "raise",
    **kwargs: Any,
) -> float:
    """verl's per-sample signature: the rubric reward of one rollout."""
    client = _client(url, token)
    rewards, errors = client.rewards([_sample(client, solution_str, ground_truth, extra_info, label_field, response_field)])
    return _resolve(rewards[0], errors[0], on_error)


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Any]] = None,
    url: Optional[str] = None,
    token: Optional[str] = None,
    label_field: str = "answer",
    response_field: Optional[str] = None,
    on_error: Union[str, float] = "raise",
    **kwargs: Any,
) -> List[float]:
    """verl's batch signature (BatchRewardManager): one request per `max_batch` rollouts, in order."""
    client = _client(url, token)
    extras = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    samples = [_sample(client, s, g, e, label_field, response_field) for s, g, e in zip(solution_strs, ground_truths, extras)]
    rewards, errors = client.rewards(samples)
    return [_resolve(r, e, on_error) for r, e in zip(rewards, errors)]
