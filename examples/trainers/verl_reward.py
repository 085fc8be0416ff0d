"""verl reward functions backed by `rubricate serve` (stdlib only, self-contained).

verl loads this file by path (importlib, not on sys.path), so it imports nothing of its own:

    reward_model.reward_manager=naive                    # reward loop: naive, dapo, remote or rate_limited
    custom_reward_function.path=examples/trainers/verl_reward.py
    custom_reward_function.name=compute_score
    +custom_reward_function.reward_kwargs.url=http://127.0.0.1:8000

`compute_score(data_source, solution_str, ground_truth, extra_info=None, **reward_kwargs)` scores
one rollout (verl's reward-loop managers call it once per rollout, from a thread pool, so many
requests are in flight at once). `compute_score_batch(data_sources, solution_strs, ground_truths,
extra_infos, **reward_kwargs)` is for the legacy `batch` manager (`reward_model.use_reward_loop=false`).

The sample sent: `solution_str` as the response; `ground_truth` in the server's label input
(`label_field` overrides; a dict ground truth supplies inputs by name); `extra_info` entries named
like rubric inputs (verl's gsm8k preprocessing puts the question in `extra_info["question"]`).

What verl gets back is always `{"score": float, "rubricate_error": 0.0 | 1.0}` with the same keys
for every rollout (verl builds its extra-info arrays from the first rollout's keys; None or NaN
would break its reward tensor). A rollout the judge could not score gets `on_error` (default
0.0; any finite number) and `rubricate_error` 1.0, which verl logs as a mean, so failures stay
visible. A judge outage (the server answers 503 for the whole request, retried here with its
Retry-After) raises: verl stops rather than train on invented rewards. `on_error="raise"` raises
for any failure. Any other `on_error` (NaN, an infinity, a word) is a ValueError at the first call,
before anything is sent, rather than a score verl cannot train on at the first failure.
"""
from __future__ import annotations

import json
import logging
import math
import os
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["compute_score", "compute_score_batch", "RubricateError"]

log = logging.getLogger("rubricate")


class RubricateError(RuntimeError):
    """The server refused a request (4xx), or could not answer after every retry."""

    def __init__(self, message: str, status: Optional[int] = None, code: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.code = code


_info: Dict[tuple, Dict[str, Any]] = {}


def _request(url: str, token: Optional[str], path: str, body: Any = None, timeout: float = 600.0, retries: int = 4) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    headers = {"Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + token
    last: Optional[BaseException] = None
    wait: Optional[float] = None
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(wait if wait is not None else min(30.0, 0.5 * 2 ** (attempt - 1)))
        wait = None
        request = urllib.request.Request(url + path, data=data, headers=headers, method="GET" if data is None else "POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            try:
                error = json.loads(e.read().decode("utf-8")).get("error", {})
            except Exception:
                error = {}
            message = "%s: HTTP %d %s" % (path, e.code, error.get("message") or e.reason)
            if e.code < 500 or e.code == 501:
                raise RubricateError(message, e.code, error.get("code")) from None
            last = RubricateError(message, e.code, error.get("code"))
            try:
                wait = min(60.0, max(0.0, float(e.headers.get("Retry-After"))))
            except (TypeError, ValueError):
                wait = None
        except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
            last = e
    raise RubricateError("%s failed after %d attempt(s): %s" % (path, retries + 1, last))


def _server(url: Optional[str], token: Optional[str]) -> tuple:
    url = (url or os.environ.get("RUBRICATE_URL") or "http://127.0.0.1:8000").rstrip("/")
    token = token if token is not None else os.environ.get("RUBRICATE_TOKEN")
    key = (url, token)
    if key not in _info:
        _info[key] = _request(url, token, "/healthz")
    return url, token, _info[key]


def _sample(info: Dict[str, Any], solution_str: str, ground_truth: Any, extra_info: Any, label_field: Optional[str], response_field: Optional[str]) -> Dict[str, Any]:
    inputs = set(info.get("inputs", []))
    sample: Dict[str, Any] = {}
    if isinstance(extra_info, dict):
        sample.update({k: v for k, v in extra_info.items() if k in inputs})
    label = label_field or info.get("label_field") or "answer"
    if isinstance(ground_truth, dict):
        sample.update(ground_truth)
    elif ground_truth is not None:
        sample[label] = ground_truth if isinstance(ground_truth, str) else str(ground_truth)
    sample[response_field or info.get("response_field", "response")] = solution_str
    return sample


def _on_error(value: Any) -> Union[str, float]:
    """`on_error` as `_resolve` takes it: "raise", or a finite number (a numeric string too, as a
    command-line override may give it). Checked at every call, before anything is sent: NaN would
    reach verl's reward tensor and spread through the group's advantages, an infinity likewise, and
    a misspelt word would otherwise only fail at the first rollout without a reward, hours in."""
    if isinstance(value, str) and value.strip() == "raise":
        return "raise"
    if not isinstance(value, bool):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if math.isfinite(number):
            return number
    raise ValueError(
        'on_error must be "raise" or a finite number (the score of a rollout without a reward, flagged by rubricate_error 1.0), not %r: '
        "verl needs a number in every rollout's score, and NaN or an infinity would spread through its advantages" % (value,)
    )


def _resolve(reward: Optional[float], error: Optional[str], on_error: Union[str, float]) -> Dict[str, float]:
    if reward is not None:
        return {"score": float(reward), "rubricate_error": 0.0}
    if on_error == "raise":
        raise RubricateError("rubricate could not compute a reward: %s" % error)
    log.warning("rubricate: a rollout has no reward, scored %s instead (%s)", on_error, error)
    return {"score": float(on_error), "rubricate_error": 1.0}


def _is_episode(extra_info: Any) -> bool:
    # verl's ToolAgentLoop always sets turn_scores (possibly empty); interaction_kwargs comes from the row.
    return isinstance(extra_info, dict) and "turn_scores" in extra_info and isinstance(extra_info.get("interaction_kwargs"), dict)


def _episode_score(extra_info: Dict[str, Any], on_error: Union[str, float]) -> Dict[str, float]:
    scores = [float(s) for s in list(extra_info.get("turn_scores") or []) if s is not None and math.isfinite(float(s))]
    if scores:
        return _resolve(scores[-1], None, on_error)
    return _resolve(None, "the episode ended without a turn score (its session failed or was cut; see the rubricate log lines)", on_error)


def compute_score(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Any = None,
    url: Optional[str] = None,
    token: Optional[str] = None,
    label_field: Optional[str] = None,
    response_field: Optional[str] = None,
    on_error: Union[str, float] = 0.0,
    **kwargs: Any,
) -> Dict[str, float]:
    """verl's per-rollout signature: `{"score": reward, "rubricate_error": 0.0 or 1.0}`.

    For an episode played through the rubricate interaction (`extra_info` holds verl's
    `turn_scores` and the row's `interaction_kwargs`), the score is the episode's: the last turn
    score, which the environment computed when the episode ended. No turn score (the session
    failed, or verl cut the episode without `verl_agent_loop.RubricateAgentLoop`) is a failure:
    `on_error` with `rubricate_error` 1.0.
    """
    on_error = _on_error(on_error)
    if _is_episode(extra_info):
        return _episode_score(extra_info, on_error)
    url, token, info = _server(url, token)
    answer = _request(url, token, "/v1/score", {"samples": [_sample(info, solution_str, ground_truth, extra_info, label_field, response_field)]})
    return _resolve(answer["rewards"][0], answer["errors"][0], on_error)


def compute_score_batch(
    data_sources: Sequence[Any] = (),
    solution_strs: Sequence[str] = (),
    ground_truths: Sequence[Any] = (),
    extra_infos: Optional[Sequence[Any]] = None,
    url: Optional[str] = None,
    token: Optional[str] = None,
    label_field: Optional[str] = None,
    response_field: Optional[str] = None,
    on_error: Union[str, float] = 0.0,
    max_batch: int = 1024,
    **kwargs: Any,
) -> List[Dict[str, float]]:
    """The legacy batch manager's signature: one request per `max_batch` rollouts, results in order."""
    on_error = _on_error(on_error)
    url, token, info = _server(url, token)
    extras = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    samples = [_sample(info, s, g, e, label_field, response_field) for s, g, e in zip(solution_strs, ground_truths, extras)]
    out: List[Dict[str, float]] = []
    for start in range(0, len(samples), max(1, max_batch)):
        answer = _request(url, token, "/v1/score", {"samples": samples[start : start + max_batch]})
        out.extend(_resolve(r, e, on_error) for r, e in zip(answer["rewards"], answer["errors"]))
    return out
