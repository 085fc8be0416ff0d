"""A stdlib-only client for `rubricate serve` (urllib, json, concurrent.futures).

    client = RubricateClient("http://127.0.0.1:8000")
    rewards, errors = client.rewards([{"question": "2+2?", "response": "4", "answer": "4"}])

A reward the server could not compute is None, with its reason at the same index of `errors`;
it is never replaced by a made-up 0. Batches larger than `max_batch` are split and sent from a
thread pool; connection failures and 5xx answers are retried with backoff (a 503 from a judge
outage says how long to wait in Retry-After, and the client waits that long), 4xx answers are
not (they mean the request itself is wrong). The server's cache makes every retry free for
answers it already paid for.
"""
from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Sequence, Tuple

__all__ = ["RubricateClient", "RubricateError", "message_text"]

#: Longest wait honoured from a Retry-After header, in seconds.
MAX_RETRY_AFTER = 60.0


def message_text(value: Any, role: Optional[str] = None) -> str:
    """The text of a plain string, a message, or a list of messages (the last one with `role`)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        content = value.get("content", "")
        if isinstance(content, list):  # multimodal parts: keep the text ones
            return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type", "text") == "text")
        return "" if content is None else str(content)
    if isinstance(value, (list, tuple)):
        messages = [m for m in value if isinstance(m, dict) and (role is None or m.get("role") == role)]
        if role == "assistant":  # a completion may be several assistant messages (tool turns)
            return "\n".join(message_text(m) for m in messages)
        return message_text(messages[-1]) if messages else ""
    return str(value)


class RubricateError(RuntimeError):
    """The server refused a request (4xx), or could not be reached after every retry."""

    def __init__(self, message: str, status: Optional[int] = None, code: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.code = code


class RubricateClient:
    """Scores samples (dicts of the rubric's inputs) on a running `rubricate serve`."""

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 600.0,
        max_batch: int = 256,
        workers: int = 8,
        retries: int = 4,
    ) -> None:
        self.url = (url or os.environ.get("RUBRICATE_URL") or "http://127.0.0.1:8000").rstrip("/")
        self.token = token if token is not None else os.environ.get("RUBRICATE_TOKEN")
        self.timeout = timeout
        self.max_batch = max(1, max_batch)
        self.workers = max(1, workers)
        self.retries = max(0, retries)
        self._info: Optional[Dict[str, Any]] = None

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        last: Optional[BaseException] = None
        wait: Optional[float] = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(wait if wait is not None else min(30.0, 0.5 * 2 ** (attempt - 1)))
            wait = None
            request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as e:
                try:
                    error = json.loads(e.read().decode("utf-8")).get("error", {})
                except Exception:
                    error = {}
                message = "%s %s: HTTP %d %s" % (method, path, e.code, error.get("message") or e.reason)
                if e.code < 500 or e.code == 501:
                    raise RubricateError(message, e.code, error.get("code")) from None
                last = RubricateError(message, e.code, error.get("code"))
                try:
                    wait = min(MAX_RETRY_AFTER, max(0.0, float(e.headers.get("Retry-After"))))
                except (TypeError, ValueError):
                    wait = None
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                last = e
        raise RubricateError("%s %s failed after %d attempt(s): %s" % (method, path, self.retries + 1, last))

    def info(self) -> Dict[str, Any]:
        """The server's rubric id, inputs and response field (`GET /healthz`), fetched once."""
        if self._info is None:
            self._info = self._request("GET", "/healthz")
        return self._info

    def score(self, samples: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
        """Full results in input order: reward, passed, verdicts, feedback, errors."""
        return [r for chunk in self._chunks(samples) for r in chunk["results"]]

    def rewards(self, samples: Sequence[Dict[str, Any]]) -> Tuple[List[Optional[float]], List[Optional[str]]]:
        """Rewards in input order (None when not computed) and the parallel list of reasons."""
        rewards: List[Optional[float]] = []
        errors: List[Optional[str]] = []
        for chunk in self._chunks(samples):
            rewards.extend(chunk["rewards"])
            errors.extend(chunk["errors"])
        return rewards, errors

    def stats(self) -> Dict[str, Any]:
        """Calls, cache hits, tokens, cost, queue depth and errors so far (`GET /v1/stats`)."""
        return self._request("GET", "/v1/stats")

    def _chunks(self, samples: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
        samples = list(samples)
        if not samples:
            return []
        parts = [samples[i : i + self.max_batch] for i in range(0, len(samples), self.max_batch)]
        if len(parts) == 1:
            return [self._request("POST", "/v1/score", {"samples": parts[0]})]
        with ThreadPoolExecutor(max_workers=min(self.workers, len(parts))) as pool:
            return list(pool.map(lambda part: self._request("POST", "/v1/score", {"samples": part}), parts))
