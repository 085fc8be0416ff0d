"""Trainers drive rubricate environments over HTTP (``rubricate serve --env env.yaml``).

Standard library only. Three ways in:

* ``EnvClient``: the session and rollout API itself (open a task, step, call a tool, finish).
* ``trl_environment_factory(url)``: a TRL ``GRPOTrainer(environment_factory=...)`` factory.
  Each instance proxies one session: its public methods are the environment's tools (typed
  signatures and Google-style docstrings, so ``transformers.utils.get_json_schema`` renders them),
  ``reset(**row)`` opens a session for the row's ``task_id`` (or ``task_index``) and returns the
  task's first message (appended to the row's last user message), and ``get_reward()`` scores it.
  With ``reward="completions"`` the class has no ``get_reward``; put ``completion_reward`` in
  ``reward_funcs`` instead, so the model's final text is scored too.
* ``openrlhf_agent.py`` / ``verl_interaction.py`` beside this file: OpenRLHF's agent function
  and verl's multi-turn interaction, built on ``EnvClient``.

Failures are loud: a reward the server could not compute is logged, counted in
``EnvClient.failures``, and returned as ``None`` (TRL turns it into NaN and ignores it), never
as a silent 0.0.
"""

from __future__ import annotations

import json
import keyword
import logging
import os
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Optional

log = logging.getLogger("rubricate")

_JSON_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}


class RubricateEnvError(RuntimeError):
    """The environment server refused a request (a 4xx) or stayed unreachable."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"rubricate env server: {status} {code}: {message}")
        self.status = status
        self.code = code


class EnvClient:
    """The HTTP API of ``rubricate serve --env``.

    ``url`` defaults to ``$RUBRICATE_ENV_URL`` (else http://127.0.0.1:8000), ``token`` to
    ``$RUBRICATE_TOKEN``. Connection errors, 429 and 5xx are retried with backoff; a 4xx is an
    error at once (retrying cannot fix it).
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, timeout: float = 170.0, retries: int = 4):
        self.url = (url or os.environ.get("RUBRICATE_ENV_URL") or "http://127.0.0.1:8000").rstrip("/")
        self.token = token if token is not None else os.environ.get("RUBRICATE_TOKEN")
        self.timeout = timeout
        self.retries = retries
        self.failures = 0

    def request(self, method: str, path: str, body: Optional[dict] = None) -> dict:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        delay = 0.5
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    return json.loads(res.read().decode("utf-8"))
            except urllib.error.HTTPError as e:
                try:
                    err = json.loads(e.read().decode("utf-8")).get("error", {})
                except Exception:  # a proxy's HTML page, say
                    err = {}
                retryable = e.code == 429 or e.code >= 500
                if not retryable or attempt == self.retries:
                    raise RubricateEnvError(e.code, err.get("code", "HTTP_ERROR"), err.get("message", str(e))) from None
                wait = float(e.headers.get("retry-after") or delay)
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                if attempt == self.retries:
                    raise RubricateEnvError(0, "UNREACHABLE", f"{self.url}: {e}") from None
                wait = delay
            time.sleep(min(wait, 30.0))
            delay *= 2
        raise AssertionError("unreachable")

    def open(self, task_id: Any = None, task_index: Optional[int] = None, task: Optional[dict] = None) -> dict:
        ref = {k: v for k, v in (("task_id", task_id), ("task_index", task_index), ("task", task)) if v is not None}
        return self.request("POST", "/v1/sessions", ref)

    def step(self, session_id: str, content: str, tool_calls: Optional[list] = None) -> dict:
        body: dict = {"content": content}
        if tool_calls:
            body["tool_calls"] = tool_calls
        return self.request("POST", f"/v1/sessions/{session_id}/step", body)

    def call_tool(self, session_id: str, name: str, arguments: dict) -> dict:
        return self.request("POST", f"/v1/sessions/{session_id}/tools/{name}", {"arguments": arguments})

    def finish(self, session_id: str, response: Optional[str] = None) -> dict:
        return self.request("POST", f"/v1/sessions/{session_id}/finish", {} if response is None else {"response": response})

    def close(self, session_id: str) -> None:
        try:
            self.request("DELETE", f"/v1/sessions/{session_id}")
        except RubricateEnvError as e:  # already expired or the server restarted: nothing to free
            log.debug("close %s: %s", session_id, e)

    def rollouts(self, policy: dict, k: int = 1, **task_ref: Any) -> dict:
        return self.request("POST", "/v1/rollouts", {**task_ref, "k": k, "policy": policy})

    def reward_of(self, finished: dict) -> Optional[float]:
        """The reward as a float, or None (logged and counted) when the server could not compute one."""
        reward = finished.get("reward")
        if reward is None:
            self.failures += 1
            reasons = "; ".join(f"{e.get('criterion')}: {e.get('code')}: {e.get('message')}" for e in finished.get("errors", []))
            log.warning("rubricate: no reward for session %s (%s)", finished.get("session_id"), reasons or "no reason given")
            return None
        return float(reward)


def task_ref(row: dict) -> dict:
    """The task a dataset row names: ``task_id`` or ``task_index`` (``task`` for a task object)."""
    for key in ("task_id", "task_index", "task"):
        if row.get(key) is not None:
            return {key: row[key]}
    raise ValueError("rubricate: each dataset row needs a task_id (or task_index) column naming the environment's task")


def _python_type(schema: dict) -> str:
    return _JSON_TYPES.get(schema.get("type") if isinstance(schema.get("type"), str) else "", "str")


def _tool_method(tool: dict) -> tuple[str, Callable]:
    """A method with the tool's typed signature and a docstring transformers can turn back into its schema."""
    fn = tool["function"]
    name = fn["name"].replace("-", "_")
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_") or name in ("reset", "get_reward"):
        raise ValueError(f"rubricate: tool name {fn['name']!r} cannot be a Python method name")
    params = fn.get("parameters") or {}
    props: dict = params.get("properties") or {}
    required = set(params.get("required") or [])
    for p in props:
        if not p.isidentifier() or keyword.iskeyword(p):
            raise ValueError(f"rubricate: tool {fn['name']!r} has argument {p!r}, which cannot be a Python parameter")
    ordered = [p for p in props if p in required] + [p for p in props if p not in required]
    sig = ", ".join(["self"] + [f"{p}: {_python_type(props[p])}" + ("" if p in required else " = None") for p in ordered])
    doc_lines = [fn.get("description") or f"The {fn['name']} tool.", "", "Args:"]
    for p in ordered:
        doc_lines.append(f"    {p}: {props[p].get('description') or p}")
    source = f"def {name}({sig}) -> str:\n    return self._call_tool({fn['name']!r}, {{k: v for k, v in dict({', '.join(f'{p}={p}' for p in ordered)}).items() if v is not None}})\n"
    scope: dict = {}
    # dont_inherit: this module's `from __future__ import annotations` would turn the hints into strings.
    exec(compile(source, f"<rubricate tool {fn['name']}>", "exec", dont_inherit=True), scope)  # noqa: S102 - names checked above
    method = scope[name]
    method.__doc__ = "\n".join(doc_lines)
    return name, method


class _SessionEnvironment:
    """Base of the generated TRL environment classes: one instance, one session at a time."""

    _client: EnvClient
    _append_prompt: bool = True

    def __init__(self) -> None:
        self._session: Optional[dict] = None
        self._finished: Optional[dict] = None

    def reset(self, **row: Any) -> Optional[str]:
        self._close()
        self._session = self._client.open(**task_ref(row))
        self._finished = None
        first = self._session["messages"][0]["content"] if self._session.get("messages") else ""
        return first if self._append_prompt and first else None

    def _call_tool(self, name: str, arguments: dict) -> str:
        if self._session is None:
            raise RuntimeError("rubricate: call reset() before using the environment's tools")
        result = self._client.call_tool(self._session["session_id"], name, arguments)
        return result["result"]

    def _finish(self, response: Optional[str] = None) -> Optional[float]:
        if self._session is None:
            return None
        if self._finished is None:
            self._finished = self._client.finish(self._session["session_id"], response)
            self._close()
        return self._client.reward_of(self._finished)

    def _close(self) -> None:
        if self._session is not None:
            self._client.close(self._session["session_id"])
            self._session = None

    def __del__(self) -> None:
        try:
            self._close()
        except Exception:
            pass


def trl_environment_factory(url: Optional[str] = None, token: Optional[str] = None, reward: str = "env", append_prompt: bool = True) -> Callable[[], Any]:
    """A zero-argument factory for ``GRPOTrainer(environment_factory=...)``.

    The environment's tools are read once from the server (a probe session on its first task).
    ``reward="env"`` gives the class a ``get_reward()`` that scores the session (tool calls and
    environment state); ``reward="completions"`` leaves it out: use ``completion_reward``.
    """
    if reward not in ("env", "completions"):
        raise ValueError("reward must be 'env' or 'completions'")
    client = EnvClient(url, token)
    probe = client.open(task_index=0)
    client.close(probe["session_id"])
    members: dict = {"_client": client, "_append_prompt": append_prompt, "__doc__": f"rubricate environment {probe['env']['id']}@{probe['env']['version']}"}
    for tool in probe.get("tools", []):
        name, method = _tool_method(tool)
        members[name] = method
    if reward == "env":

        def get_reward(self) -> Optional[float]:
            return self._finish()

        members["get_reward"] = get_reward
    cls = type(f"RubricateEnv_{probe['env']['id'].replace('-', '_')}", (_SessionEnvironment,), members)
    return cls


def _final_text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    for message in reversed(completion or []):
        if message.get("role") == "assistant" and message.get("content"):
            content = message["content"]
            return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    return ""


def completion_reward(completions: list, environments: Optional[list] = None, **kwargs: Any) -> list:
    """A TRL reward function: scores each rollout's session with the model's final text as its answer."""
    if environments is None:
        raise ValueError("completion_reward needs GRPOTrainer(environment_factory=trl_environment_factory(...))")
    return [env._finish(_final_text(c)) for c, env in zip(completions, environments)]
