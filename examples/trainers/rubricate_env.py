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

Failures are loud: a reward the server could not compute (its judge failed, the session
expired, the server stayed unreachable) is logged with the reason, counted in
``EnvClient.failures``, and returned as ``None`` (TRL turns it into NaN and ignores it), never
as a silent 0.0. A dataset row naming a task the environment lacks is an error (a 400), raised.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import keyword
import logging
import os
import re
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Callable, Optional

log = logging.getLogger("rubricate")

_JSON_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}


class RubricateEnvError(RuntimeError):
    """The environment server refused a request (a 4xx), stayed unreachable (status 0, ``UNREACHABLE``),
    or gave no answer to a request that may have run (status 0, ``NO_ANSWER``: at once for a step
    without a key, which is not sent again; after the retries for a keyed one)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"rubricate env server: {status} {code}: {message}")
        self.status = status
        self.code = code


def retry_after(value: Optional[str], default: float) -> float:
    """Seconds a Retry-After header asks to wait: delay-seconds or an HTTP date (RFC 9110), never
    negative; ``default`` when absent or unreadable (a proxy's header must not end the run)."""
    if not value:
        return default
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return default


# What a call may do when its answer never came (a timeout, a dropped connection, a 5xx):
# "always": send it again (reads; finish, which the server answers again with the same score; close);
# "unsent": send it again only if it surely never ran: the request never reached the server whole
#   (connection refused, the send failed), or the answer was a 429 (sessions: refused before
#   running) or a 503 with Retry-After (a refusal at the door). A step or tool call without a key.
# "keyed": it carries a key (a step's `turn`; a tool call's, open's or rollouts request's `key`), so
#   the server answers a second copy from its record instead of running it again (an open finds the
#   session the first copy opened, rollouts the first copy's answer): send it again after timeouts,
#   5xx (but not a replayed failure, which is final), 429, and SESSION_BUSY (the first copy is still
#   running).
RETRY_MODES = ("always", "unsent", "keyed")
REPLAYED = "idempotent-replayed"


def _retryable_answer(e: urllib.error.HTTPError, code: str, retry: str) -> bool:
    if retry == "keyed":
        if e.headers.get(REPLAYED) == "true":
            return False  # the first copy's failure, given again: retrying changes nothing
        return e.code == 429 or e.code >= 500 or (e.code == 409 and code == "SESSION_BUSY")
    if retry == "unsent":
        return e.code == 429 or (e.code == 503 and e.headers.get("retry-after") is not None)
    return e.code == 429 or e.code >= 500


class EnvClient:
    """The HTTP API of ``rubricate serve --env``.

    ``url`` defaults to ``$RUBRICATE_ENV_URL`` (else http://127.0.0.1:8000), ``token`` to
    ``$RUBRICATE_TOKEN``. Failures are retried with backoff (``retries``, default
    ``$RUBRICATE_ENV_RETRIES`` or 4) only when sending again is safe: a step carries the session's
    turn (tracked for the sessions this client opened), and a tool call, an open and a rollouts
    request a key of their own, so a copy of one that already ran is answered from the server's
    record, never run twice (no second session, no rollouts played twice). A step without a turn (a
    session this client did not open) is sent again only if it surely never ran. Another 4xx is an
    error at once. The keys need a server of the same release or later (older ones refuse them as
    unknown fields, a 400).
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, timeout: float = 170.0, retries: Optional[int] = None):
        self.url = (url or os.environ.get("RUBRICATE_ENV_URL") or "http://127.0.0.1:8000").rstrip("/")
        self.token = token if token is not None else os.environ.get("RUBRICATE_TOKEN")
        self.timeout = timeout
        self.retries = retries if retries is not None else int(os.environ.get("RUBRICATE_ENV_RETRIES", "4"))
        self.failures = 0
        self._turns: dict = {}  # {session_id: the session's turn count, from its last answer}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("_turns", "_lock")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._turns, self._lock = {}, threading.Lock()

    def request(self, method: str, path: str, body: Optional[dict] = None, retry: str = "always") -> dict:
        if retry not in RETRY_MODES:
            raise ValueError(f"retry must be one of {RETRY_MODES}")
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
                if not _retryable_answer(e, err.get("code", ""), retry) or attempt == self.retries:
                    raise RubricateEnvError(e.code, err.get("code", "HTTP_ERROR"), err.get("message", str(e))) from None
                wait = retry_after(e.headers.get("retry-after"), delay)
            except urllib.error.URLError as e:  # connecting or sending failed: the server never had the whole request
                if attempt == self.retries:
                    raise RubricateEnvError(0, "UNREACHABLE", f"{self.url}: {e}") from None
                wait = delay
            except (ConnectionError, TimeoutError, http.client.HTTPException) as e:  # sent, but no answer: it may have run
                if retry == "unsent" or attempt == self.retries:
                    unsafe = " (not sent again: without a key it could run twice)" if retry == "unsent" else ""
                    raise RubricateEnvError(0, "NO_ANSWER", f"{method} {self.url}{path} sent, no answer: {type(e).__name__}: {e}{unsafe}") from None
                wait = delay
            time.sleep(min(wait, 30.0))
            delay *= 2
        raise AssertionError("unreachable")

    def _track(self, session_id: str, answer: dict) -> dict:
        """Keeps the turn count a session's answer gives: the next step's key."""
        turns = answer.get("turns")
        if isinstance(turns, int):
            with self._lock:
                self._turns.pop(session_id, None)
                self._turns[session_id] = turns
                while len(self._turns) > 65536:  # sessions never closed: forget the oldest
                    del self._turns[next(iter(self._turns))]
        return answer

    def _forget(self, session_id: str) -> None:
        with self._lock:
            self._turns.pop(session_id, None)

    def open(self, task_id: Any = None, task_index: Optional[int] = None, task: Optional[dict] = None, key: Optional[str] = None) -> dict:
        """Opens a session; ``key`` (default: a fresh one) makes sending it again safe: a copy of an open
        whose answer was lost gets the session the first one opened, not a second that would hold a
        place of ``--max-sessions`` (and a sandbox) until it expired."""
        ref = {k: v for k, v in (("task_id", task_id), ("task_index", task_index), ("task", task)) if v is not None}
        opened = self.request("POST", "/v1/sessions", {**ref, "key": key or uuid.uuid4().hex}, retry="keyed")
        return self._track(opened["session_id"], opened)

    def step(self, session_id: str, content: str, tool_calls: Optional[list] = None, turn: Optional[int] = None) -> dict:
        """One assistant turn. ``turn`` (default: the count this client saw last for the session) keys it:
        sent again after a timeout or 5xx, it is answered from the server's record, never applied twice."""
        body: dict = {"content": content}
        if tool_calls:
            body["tool_calls"] = tool_calls
        if turn is None:
            turn = self._turns.get(session_id)
        if turn is None:
            return self.request("POST", f"/v1/sessions/{session_id}/step", body, retry="unsent")
        body["turn"] = turn
        return self._track(session_id, self.request("POST", f"/v1/sessions/{session_id}/step", body, retry="keyed"))

    def call_tool(self, session_id: str, name: str, arguments: dict, key: Optional[str] = None) -> dict:
        """Runs one tool in the session; ``key`` (default: a fresh one) makes sending it again safe."""
        body = {"arguments": arguments, "key": key or uuid.uuid4().hex}
        return self.request("POST", f"/v1/sessions/{session_id}/tools/{name}", body, retry="keyed")

    def finish(self, session_id: str, response: Optional[str] = None) -> dict:
        self._forget(session_id)
        return self.request("POST", f"/v1/sessions/{session_id}/finish", {} if response is None else {"response": response})

    def close(self, session_id: str) -> None:
        self._forget(session_id)
        try:
            self.request("DELETE", f"/v1/sessions/{session_id}")
        except RubricateEnvError as e:  # already expired or the server restarted: nothing to free
            log.debug("close %s: %s", session_id, e)

    def rollouts(self, policy: dict, k: int = 1, key: Optional[str] = None, **task_ref: Any) -> dict:
        """Plays ``k`` rollouts of a task on the server against ``policy``; ``key`` (default: a fresh one)
        makes sending it again safe: a copy gets the first one's rollouts (waiting while they play), never plays them twice."""
        return self.request("POST", "/v1/rollouts", {**task_ref, "k": k, "policy": policy, "key": key or uuid.uuid4().hex}, retry="keyed")

    def reward_of(self, finished: dict) -> Optional[float]:
        """The reward as a float, or None (logged and counted) when the server could not compute one."""
        reward = finished.get("reward")
        if reward is None:
            self.failures += 1
            reasons = "; ".join(f"{e.get('criterion')}: {e.get('code')}: {e.get('message')}" for e in finished.get("errors", []))
            log.warning("rubricate: no reward for session %s (%s)", finished.get("session_id"), reasons or "no reason given")
            return None
        return float(reward)


# verl: the interaction opens a trajectory's session and verl's tools find it by the trajectory's
# request_id (verl passes `agent_data` to tools and the same request_id to the interaction).
# {request_id: {"session_id": str, "done": bool}}; both modules import this one.
VERL_SESSIONS: dict = {}
VERL_LOCK = threading.Lock()


def task_ref(row: dict) -> dict:
    """The task a dataset row names: ``task_id`` or ``task_index`` (``task`` for a task object)."""
    for key in ("task_id", "task_index", "task"):
        if row.get(key) is not None:
            return {key: row[key]}
    raise ValueError("rubricate: each dataset row needs a task_id (or task_index) column naming the environment's task")


# End-of-turn markers a model's raw text may still carry (vLLM with skip_special_tokens=False,
# or a template whose end marker is not a special token). They are not part of the answer: the
# environment and the rubric see the text without them, as `rubricate eval` does.
END_MARKERS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end|>", "</s>", "<end_of_turn>", "<|end_of_text|>")
_END_RE = re.compile("(?:" + "|".join(re.escape(m) for m in END_MARKERS) + r")\s*$")


def strip_end_markers(text: str) -> str:
    """The text without trailing end-of-turn markers (and the white space after them)."""
    while True:
        cut = _END_RE.sub("", text)
        if cut == text:
            return text
        text = cut


def episode_logs(criteria: list, finished: Optional[dict] = None, error: bool = False, unfinished: bool = False) -> dict:
    """Per-sample log values with the same keys whatever happened (OpenRLHF stacks them by key).

    ``rubricate_error`` 1.0: no reward (server unreachable, session expired, judge failed);
    ``rubricate_unfinished`` 1.0: the trainer stopped the episode before the environment did
    (token budget); ``rubricate/<criterion>`` 1.0 when the criterion was met, else 0.0.
    """
    met = {v.get("id"): v.get("status") == "met" for v in (finished or {}).get("verdicts", [])}
    logs = {"rubricate_error": 1.0 if error else 0.0, "rubricate_unfinished": 1.0 if unfinished else 0.0}
    for c in criteria:
        logs[f"rubricate/{c}"] = 1.0 if met.get(c) else 0.0
    return logs


def describe_env(client: "EnvClient") -> dict:
    """What a session of the environment offers (tools, criteria, whether it answers turns): a probe session on its first task, closed at once."""
    opened = client.open(task_index=0)
    client.close(opened["session_id"])
    return opened


def reply_text(stepped: dict, tool_template: str = "{content}") -> str:
    """The environment's answer to a turn: its reply and tool results (each through ``tool_template``), in order."""
    parts = []
    for m in stepped.get("messages", []):
        if m.get("role") == "tool":
            parts.append(tool_template.format(content=m.get("content") or ""))
        elif m.get("role") == "user":
            parts.append(m.get("content") or "")
    return "\n".join(parts)


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


def _reply_method() -> Callable:
    def reply(self, message: str) -> str:
        """Send your next message to the environment (a guess, an answer) and get its reply.

        Args:
            message: What you say to the environment, e.g. "GUESS: crane".
        """
        return self._reply(message)

    return reply


class _SessionEnvironment:
    """Base of the generated TRL environment classes: one instance, one session at a time.

    TRL's contract (GRPOTrainer, trl f2cd577): instances are pooled and ``reset(**row)`` is called
    before every rollout; a tool that raises becomes ``{"error": str(e)}`` in the conversation
    (``_tool_call_loop``); ``reset`` and ``get_reward`` are not guarded, so here they raise only for
    a dataset bug (a row naming no task of the environment) and otherwise record the failure:
    ``get_reward`` then returns None, which TRL turns into NaN and leaves out of the advantages.
    """

    _client: EnvClient
    _append_prompt: bool = True

    def __init__(self) -> None:
        self._session: Optional[dict] = None
        self._finished: Optional[dict] = None
        self._failure: Optional[str] = None
        self._done = False

    def reset(self, **row: Any) -> Optional[str]:
        self._close()
        self._finished, self._failure, self._done = None, None, False
        try:
            self._session = self._client.open(**task_ref(row))
        except RubricateEnvError as e:
            if 400 <= e.status < 500 and e.status not in (404, 429):
                raise  # the row names no task of this environment: fix the dataset
            self._fail(f"opening a session failed: {e}")
            return None
        first = self._session["messages"][0]["content"] if self._session.get("messages") else ""
        return first if self._append_prompt and first else None

    def _fail(self, reason: str) -> None:
        if self._failure is None:
            self._failure = reason
            log.warning("rubricate: the episode failed; its reward will be None: %s", reason)
        self._close()

    def _live_session(self) -> str:
        if self._session is None:
            raise RuntimeError(f"rubricate: no session ({self._failure or 'call reset() first'})")
        return self._session["session_id"]

    def _guarded(self, fn: Callable[[], dict]) -> dict:
        """Runs a session call; a lost session (expired, server gone) fails the episode, a refused call (4xx) only the call."""
        try:
            return fn()
        except RubricateEnvError as e:
            # 409: the session's conversation may no longer be the one the trainer holds (a step it never saw answered).
            if e.status in (0, 404, 409, 429) or e.status >= 500:
                self._fail(str(e))
            raise

    def _call_tool(self, name: str, arguments: dict) -> str:
        sid = self._live_session()
        result = self._guarded(lambda: self._client.call_tool(sid, name, arguments))
        self._done = bool(result.get("done"))
        return result["result"] + ("" if not self._done else "\n(The episode is over.)")

    def _reply(self, message: str) -> str:
        sid = self._live_session()
        if self._done:
            return "(The episode is over.)"
        stepped = self._guarded(lambda: self._client.step(sid, strip_end_markers(message)))
        self._done = bool(stepped.get("done"))
        return reply_text(stepped) + ("\n(The episode is over.)" if self._done else "")

    def _finish(self, response: Optional[str] = None) -> Optional[float]:
        if self._finished is None and self._failure is None:
            if self._session is None:
                return None
            try:
                self._finished = self._client.finish(self._session["session_id"], response)
            except RubricateEnvError as e:
                self._fail(f"finish failed: {e}")
            finally:
                self._close()
        if self._finished is None:
            self._client.failures += 1
            log.warning("rubricate: no reward (None) for this rollout: %s", self._failure)
            return None
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


class TrlEnvironmentFactory:
    """A zero-argument, picklable factory for ``GRPOTrainer(environment_factory=...)``.

    Picklable because TRL's ``AsyncGRPOTrainer`` sends ``environment_factory`` to a spawned
    process (``async_rollout_worker.py``): the factory pickles as its settings and the tool
    schemas it read, and rebuilds its class there. Every instance of one factory has the same
    class (TRL matches ``type(e) is env_type`` to pick ``get_reward``).
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, reward: str = "env", append_prompt: bool = True, description: Optional[dict] = None):
        if reward not in ("env", "completions"):
            raise ValueError("reward must be 'env' or 'completions'")
        self.url, self.token, self.reward, self.append_prompt = url, token, reward, append_prompt
        self.description = description or describe_env(EnvClient(url, token))
        self._cls: Optional[type] = None

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_cls"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._cls = None

    def __call__(self) -> Any:
        if self._cls is None:
            self._cls = self._build()
        return self._cls()

    @property
    def env_class(self) -> type:
        if self._cls is None:
            self._cls = self._build()
        return self._cls

    def _build(self) -> type:
        d = self.description
        members: dict = {"_client": EnvClient(self.url, self.token), "_append_prompt": self.append_prompt, "__doc__": f"rubricate environment {d['env']['id']}@{d['env']['version']}"}
        for tool in d.get("tools", []):
            name, method = _tool_method(tool)
            members[name] = method
        if d.get("answers_turns"):
            # TRL reaches an environment only through tools: one that answers turns (Wordle) gets `reply`.
            if "reply" in members:
                raise ValueError("rubricate: the environment answers turns and also has a tool named 'reply'")
            members["reply"] = _reply_method()
        if self.reward == "env":

            def get_reward(self) -> Optional[float]:
                return self._finish()

            members["get_reward"] = get_reward
        return type(f"RubricateEnv_{d['env']['id'].replace('-', '_')}", (_SessionEnvironment,), members)


def trl_environment_factory(url: Optional[str] = None, token: Optional[str] = None, reward: str = "env", append_prompt: bool = True) -> TrlEnvironmentFactory:
    """A zero-argument factory for ``GRPOTrainer(environment_factory=...)`` (picklable, for ``AsyncGRPOTrainer`` too).

    The environment's tools are read once from the server (a probe session on its first task).
    ``reward="env"`` gives the class a ``get_reward()`` that scores the session (tool calls and
    environment state); ``reward="completions"`` leaves it out: use ``completion_reward``. An
    environment that answers turns (Wordle) also gets a ``reply(message)`` tool.
    """
    return TrlEnvironmentFactory(url, token, reward, append_prompt)


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
