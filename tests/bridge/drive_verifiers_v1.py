"""prime-rl's orchestrator and env server, and verifiers v1's episode machinery, reduced to their contract,
playing a rubricate environment through examples/trainers/rubricate_v1.py.

Run by tests/bridge/trainer-loops.ts (the env-trainer-loops-*.test.ts files):
`python3 drive_verifiers_v1.py <scenario>[=<url>] ...` with RUBRICATE_ENV_URL and ENV_NAME set
runs the scenarios one after another in this interpreter, each against its own server, and prints
one JSON object: each scenario's output under its name (see `main`). verifiers and prime-rl are not
installable here (no network), so `verifiers.v1` below is a stand-in written from their source
(verifiers a60a606, prime-rl 559b447; nothing copied), pydantic models as theirs are. The contract:

Loading (verifiers/v1/utils/loaders.py, prime-rl orchestrator/envs.py, entrypoints/env_server.py):
- a taskset id imports `verifiers.v1.tasksets.<m>` if it exists, else `<m>`, where m is the id
  without `owner/` and `@version`, "-" -> "_", lowercased; the module's `__all__` must name
  exactly one Taskset subclass (and at most one Env subclass, else SingleAgentEnv runs it);
- configs narrow by id: `env.taskset` to the Taskset's config type (from its generic parameters),
  the env config to the Env's (`Env[Config]`); roles are the AgentConfig fields; a role's
  `harness` dict narrows by its id;
- the orchestrator builds the taskset from the TOML's `env.taskset`, `list(taskset)` in a thread,
  and ships each task's data as JSON (`task_data`); the env server validates it into the task
  type's data type, builds `Task(data, env.taskset.config.task)` and calls `run_episode`.
Episodes (verifiers/v1/env.py, agent.py, rollout.py, harness.py, harnesses/null/program.py):
- run_episode: `setup(agents)`, `run(task, agents)` (an exception -> `episode.errors`, ok False,
  the completed traces kept; no trace at all is an error too), `finalize`, then ok = all traces ok;
- `agents.<role>.interaction(task)`: Rollout.open (a prompt-less task needs a user; Task.setup;
  the task's toolsets each started as `python -m <module>` with VF_CONFIG, `setup()`,
  `setup_task(task data from /task)`, `register(mcp)`), then yields an Interaction; an exception
  in the body fails the run and is raised again; leaving it closes the run as `user_closed`
  (tool servers down, Task.finalize/score when ok, `trace.ok`);
- `turn(messages)`: a prompt-less exchange must be opened with messages (dicts parsed into typed
  messages); one segment of the null harness: the conversation so far (system messages kept),
  model calls until a reply without tool_calls, each call dispatched to MCP by its advertised
  name (`<server>_<tool>`, bare when TOOL_PREFIX is None), arguments JSON -> dict, an unknown tool
  or a raising tool an error text for the model; `max_turns` refuses further model calls and
  stops the trace; a segment that added no turn is `terminated`;
- tool servers see the rollout's state by value: pulled (JSON, validated into their State
  subclass) before each call and pushed back (replacing `trace.state`) when changed;
- prime-rl: a failed episode marks its ok traces failed; only ok traces train, on `trace.reward`
  (the sum of score x weight).
"""

import asyncio
import contextlib
import contextvars
import functools
import importlib
import importlib.util
import inspect
import json
import os
import runpy
import sys
import tomllib
import types
import urllib.request
import copy
import typing
from typing import Any, Generic, Literal, Optional, TypeVar, Union, get_args, get_origin

from scenario_runner import run_scenarios  # beside this file, on the path of a script run as `python3 <file>`

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", ".."))
sys.path.insert(0, os.path.join(root, "examples", "trainers"))

URL = os.environ["RUBRICATE_ENV_URL"]
ENV = os.environ["ENV_NAME"]
MANY = int(os.environ.get("MANY", "64"))  # the concurrent episodes of the `play` scenario
TRAJECTORIES = json.load(open(os.path.join(here, "fixtures", "trajectories.json")))[ENV]
out: dict = {}


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def http(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(URL + path, data=data, method=method, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


# ================= pydantic, as much as verifiers' models use (Debian's python3 has no pydantic 2) =================
class Field:
    def __init__(self, default=None, default_factory=None, discriminator=None):
        self.default, self.default_factory = default, default_factory

    def make(self):
        return self.default_factory() if self.default_factory else copy.deepcopy(self.default)


class _Missing:
    pass


def _coerce(hint, value, where):
    """A value for a field of type `hint`: dicts become the models they describe; None only where Optional."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is Union:
        if value is None:
            check(type(None) in args, f"{where}: None for a required field")
            return None
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if isinstance(value, dict) and models:
            tagged = [m for m in models if "type" in m.fields() and m.fields()["type"].make() == value.get("type")]
            return (tagged or models)[0].model_validate(value)
        for a in args:
            if a is not type(None):
                return _coerce(a, value, where)
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        if isinstance(value, dict):
            return hint.model_validate(value)
        check(isinstance(value, hint), f"{where}: expected {hint.__name__}, got {type(value).__name__}")
        return value
    if hint is bool:
        check(isinstance(value, bool), f"{where}: expected a bool, got {value!r}")
    elif hint in (int, float):
        check(isinstance(value, (int, float)) and not isinstance(value, bool), f"{where}: expected a number, got {value!r}")
        return hint(value)
    elif hint is str:
        check(isinstance(value, str), f"{where}: expected a string, got {value!r}")
    elif origin in (list, dict) or hint in (list, dict):
        check(isinstance(value, origin or hint), f"{where}: expected a {(origin or hint).__name__}, got {value!r}")
    return value


class BaseModel:
    """Fields from annotations (inherited too), defaults copied per instance, unknown keys refused,
    nested dicts validated into their models, `_before` as a mode="before" validator, frozen models."""

    _frozen = False
    _extra = "forbid"

    @classmethod
    def fields(cls):
        fields = {}
        for klass in reversed(cls.__mro__):
            for name in getattr(klass, "__annotations__", {}):
                if name.startswith("_"):
                    continue
                default = klass.__dict__.get(name, _Missing)
                fields[name] = default if isinstance(default, Field) else Field(default=default)
        return fields

    @classmethod
    def _before(cls, data):
        return data

    def __init__(self, **data):
        data = type(self)._before(dict(data))
        hints = typing.get_type_hints(type(self))
        fields = type(self).fields()
        unknown = set(data) - set(fields)
        check(not unknown or self._extra != "forbid", f"{type(self).__name__}: unknown fields {sorted(unknown)}")
        for name, field in fields.items():
            if name in data:
                value = _coerce(hints[name], data[name], f"{type(self).__name__}.{name}")
            else:
                check(field.default is not _Missing or field.default_factory, f"{type(self).__name__}.{name} is required")
                value = field.make()
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        check(not self._frozen, f"{type(self).__name__} is frozen")
        object.__setattr__(self, name, value)

    @classmethod
    def model_validate(cls, data):
        return data if isinstance(data, cls) else cls(**data)

    @classmethod
    def model_validate_json(cls, text):
        return cls.model_validate(json.loads(text))

    def model_dump(self, mode="python"):
        def dump(v):
            if isinstance(v, BaseModel):
                return v.model_dump(mode)
            if isinstance(v, list):
                return [dump(x) for x in v]
            if isinstance(v, dict):
                return {k: dump(x) for k, x in v.items()}
            return v

        return {name: dump(getattr(self, name)) for name in type(self).fields()}

    def model_dump_json(self):
        return json.dumps(self.model_dump("json"), sort_keys=True)

    def model_copy(self, update=None):
        return type(self).model_validate({**self.model_dump(), **(update or {})})


# ================= verifiers.v1 (stand-in) =================
def concrete_type(cls, base, origin=None):
    for klass in cls.__mro__:
        for orig in getattr(klass, "__orig_bases__", ()):
            for arg in get_args(orig):
                if isinstance(arg, type) and issubclass(arg, base):
                    return arg
    return None


class BaseConfig(BaseModel):
    pass


class SubprocessConfig(BaseConfig):
    type: Literal["subprocess"] = "subprocess"


class PrimeConfig(BaseConfig):
    type: Literal["prime"] = "prime"


RuntimeConfig = Union[SubprocessConfig, PrimeConfig]
HARNESSES = {"null": {"SUPPORTS_MCP": True, "SUPPORTS_RESUME": True}, "bash": {"SUPPORTS_MCP": True, "SUPPORTS_RESUME": True}}


class HarnessConfig(BaseConfig):
    id: str = ""


class AgentConfig(BaseConfig):
    harness: Optional[HarnessConfig] = None
    runtime: RuntimeConfig = Field(default_factory=PrimeConfig, discriminator="type")
    model: Optional[str] = None
    max_turns: Optional[int] = None

    @classmethod
    def _before(cls, data):
        if isinstance(data, dict) and data.get("harness") is not None:
            raw = data["harness"].model_dump() if isinstance(data["harness"], BaseModel) else dict(data["harness"])
            check(raw.get("id", "bash") in HARNESSES, f"harness {raw.get('id')!r} not found")
            data = {**data, "harness": HarnessConfig(**{"id": "bash", **raw})}
        return data


class ToolsetConfig(BaseConfig):
    colocated: bool = False
    runtime: RuntimeConfig = Field(default_factory=SubprocessConfig, discriminator="type")
    url: Optional[str] = None


class TaskConfig(BaseConfig):
    judges: list = Field(default_factory=list)
    stops: dict = Field(default_factory=dict)
    metrics: dict = Field(default_factory=dict)
    rewards: dict = Field(default_factory=dict)


class TasksetConfig(BaseConfig):
    id: str = ""
    task: TaskConfig = TaskConfig()
    system_prompt: Optional[str] = None


class EnvConfig(BaseConfig):
    id: str = ""
    taskset: TasksetConfig = TasksetConfig()
    max_concurrent_agents: Optional[int] = 1

    @classmethod
    def _before(cls, data):
        if isinstance(data, dict) and data.get("taskset") is not None:
            raw = data["taskset"].model_dump() if isinstance(data["taskset"], BaseModel) else dict(data["taskset"])
            if raw.get("id"):
                config_cls = concrete_type(taskset_class(raw["id"]), TasksetConfig) or TasksetConfig
                data = {**data, "taskset": config_cls.model_validate(raw)}
        return data


class TaskData(BaseModel):
    _frozen = True
    idx: Optional[int] = None
    name: Optional[str] = None
    description: Optional[str] = None
    prompt: Optional[Union[str, list]] = None
    system_prompt: Optional[str] = None


class State(BaseModel):
    artifacts: dict = Field(default_factory=dict)


def state_cls(cls):
    return concrete_type(cls, State) or State


class SystemMessage(BaseModel):
    role: Literal["system"] = "system"
    content: Any


class UserMessage(BaseModel):
    role: Literal["user"] = "user"
    content: Any


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: Optional[str] = None
    tool_calls: Optional[list[ToolCall]] = None


class ToolMessage(BaseModel):
    role: Literal["tool"] = "tool"
    tool_call_id: str
    content: Any


def parse_message(m: dict):
    role = m.get("role")
    if role == "system":
        return SystemMessage(content=m["content"])
    if role == "user":
        return UserMessage(content=m["content"])
    if role == "tool":
        return ToolMessage(tool_call_id=m["tool_call_id"], content=m["content"])
    calls = [ToolCall(id=c["id"], name=(c.get("function") or c)["name"], arguments=(c.get("function") or c)["arguments"]) for c in m.get("tool_calls") or []]
    return AssistantMessage(content=m.get("content"), tool_calls=calls or None)


class Reward(BaseModel):
    score: float
    weight: float = 1.0

    @property
    def value(self):
        return self.score * self.weight


class Error(BaseModel):
    type: str
    message: str


class Trace(BaseModel):
    task: Any = None
    nodes: list = Field(default_factory=list)  # (message, sampled)
    rewards: dict = Field(default_factory=dict)
    metrics: dict = Field(default_factory=dict)
    info: dict = Field(default_factory=dict)
    state: Any = None
    ok: bool = False
    is_completed: bool = False
    stop_condition: Optional[str] = None
    errors: list = Field(default_factory=list)

    @property
    def reward(self):
        return sum(r.value for r in self.rewards.values() if r is not None)

    @property
    def num_turns(self):
        return sum(1 for _, sampled in self.nodes if sampled)

    def record_reward(self, name, value, weight=1.0):
        self.rewards[name] = Reward(score=float(value), weight=float(weight))

    def record_metric(self, name, value):
        self.metrics[name] = float(value)

    def record_metrics(self, values):
        for k, v in values.items():
            self.record_metric(k, v)

    def stop(self, condition):
        self.is_completed = True
        if self.stop_condition is None:
            self.stop_condition = condition


class Episode(BaseModel):
    traces: list = Field(default_factory=list)
    errors: list = Field(default_factory=list)
    ok: bool = False


DataT = TypeVar("DataT")
StateT = TypeVar("StateT")
ConfigT = TypeVar("ConfigT")
TaskT = TypeVar("TaskT")


class Task(Generic[DataT, StateT, ConfigT]):
    def __init__(self, data, config=None):
        self.data = data
        self.config = config if config is not None else self.config_type()()

    async def setup(self, trace, runtime):
        return None

    async def finalize(self, trace, runtime):
        return None

    @classmethod
    def toolsets(cls, config):
        return []

    @classmethod
    def data_type(cls):
        return concrete_type(cls, TaskData) or TaskData

    @classmethod
    def config_type(cls):
        return concrete_type(cls, TaskConfig) or TaskConfig


class Taskset(Generic[TaskT, ConfigT]):
    INFINITE = False

    def __init__(self, config):
        self.config = config

    def __iter__(self):
        yield from self.load()

    @classmethod
    def task_type(cls):
        return concrete_type(cls, Task) or Task


_call_state: contextvars.ContextVar = contextvars.ContextVar("vf_call_state", default=None)


class Toolset(Generic[ConfigT, StateT]):
    TOOL_PREFIX = ""

    def __init__(self, config):
        self.config = config
        self._state_cls = state_cls(type(self))
        self._channel = None  # the rollout's /state: (get_json, put_json)

    @property
    def state(self):
        current = _call_state.get()
        return current if current is not None else self._state_cls()

    @property
    def server_name(self):
        return "" if self.TOOL_PREFIX is None else (self.TOOL_PREFIX or type(self).__name__.lower())

    async def setup(self):
        return None

    async def setup_task(self, task):
        return None

    def register(self, mcp):
        raise NotImplementedError

    def _with_state(self, fn):
        @functools.wraps(fn)
        async def wrapper(*args, **kwargs):
            sync_state = self._state_cls is not State
            state = self._state_cls.model_validate_json(self._channel[0]()) if sync_state else State()
            token = _call_state.set(state)
            try:
                before = state.model_dump_json() if sync_state else None
                result = fn(*args, **kwargs)
                if inspect.isawaitable(result):
                    result = await result
                if before is not None and state.model_dump_json() != before:
                    self._channel[1](state.model_dump_json())
                return result
            finally:
                _call_state.reset(token)

        wrapper.__signature__ = inspect.signature(fn)
        return wrapper

    @classmethod
    def run(cls):
        LAUNCHED.append(cls)


LAUNCHED: list = []


class FakeMCP:
    """FastMCP as a tool server uses it: add_tool(fn, name, description); a call validates and awaits fn(**arguments)."""

    def __init__(self):
        self.tools = {}

    def add_tool(self, fn, name=None, description=None):
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            check(p.annotation is not inspect.Parameter.empty, f"tool {name}: argument {p.name} has no type (FastMCP builds the schema from it)")
        check(description, f"tool {name}: no description")
        self.tools[name or fn.__name__] = (fn, sig)

    async def call_tool(self, name, arguments):
        fn, sig = self.tools[name]
        try:
            sig.bind(**arguments)
            return str(await fn(**arguments))
        except Exception as e:  # FastMCP: the tool's error goes back as the call's text
            return f"Error executing tool {name}: {e}"


def harness_config_type(ident):
    return HarnessConfig


def _import_plugin(plugin_id, group):
    name = plugin_id.rsplit("/", 1)[-1].split("@", 1)[0]
    module = name.replace("-", "_").lower()
    namespaced = f"{group}.{module}"
    try:
        target = namespaced if importlib.util.find_spec(namespaced) else module
    except ModuleNotFoundError:
        target = module
    return importlib.import_module(target)


def _plugin_class(module, base):
    names = getattr(module, "__all__", None)
    check(names is not None, f"{module.__name__} defines no __all__")
    matches = [o for n in names if isinstance(o := getattr(module, n, None), type) and issubclass(o, base) and o is not base]
    if not matches:
        raise TypeError(f"{module.__name__} exports no {base.__name__} subclass")
    check(len(matches) == 1, f"{module.__name__} exports {len(matches)} {base.__name__} subclasses")
    return matches[0]


def taskset_class(taskset_id):
    return _plugin_class(_import_plugin(taskset_id, "verifiers.v1.tasksets"), Taskset)


def load_taskset(config):
    return taskset_class(config.id)(config)


def environment_class(taskset_id):
    try:
        return _plugin_class(_import_plugin(taskset_id, "verifiers.v1.tasksets"), Env)
    except (ModuleNotFoundError, TypeError, AttributeError):
        return SingleAgentEnv


def resolve_env_config(data):
    taskset_id = (data.get("taskset") or {}).get("id", "")
    cls = concrete_type(environment_class(taskset_id), EnvConfig) or EnvConfig
    return cls.model_validate(data)


def load_environment(config):
    return environment_class(config.taskset.id)(config)


class Segment:
    def __init__(self, messages, terminated=False):
        self.messages, self.terminated = messages, terminated

    @property
    def last_reply(self):
        for m in reversed(self.messages):
            if isinstance(m, AssistantMessage):
                return (m.content or "").strip()
        return ""


class Rollout:
    def __init__(self, task, agent, has_user):
        self.task, self.agent, self.has_user = task, agent, has_user
        self.trace = Trace(task=task, state=state_cls(type(task))())
        self.closed = False
        self.failure = None
        self.mcp = {}
        self.conversation = []

    @property
    def ok(self):
        return not self.trace.errors

    def fail(self, e):
        if self.failure is None:
            self.failure = e
        self.trace.errors.append(Error(type=type(e).__name__, message=str(e)))

    async def open(self):
        try:
            if self.task.data.prompt is None and not self.has_user:
                raise RuntimeError("task has no prompt and no user to open the conversation")
            await self.task.setup(trace=self.trace, runtime=None)
            for server in self.task.toolsets(self.task.config):
                self.mcp[server.server_name] = await launch(server, self.task, self.trace)
            return True
        except Exception as e:
            self.fail(e)
            return False

    def dispatch(self):
        table = {}
        for server_name, mcp in self.mcp.items():
            for tool in mcp.tools:
                full = f"{server_name}_{tool}" if server_name else tool
                check(full not in table, f"duplicate tool name {full!r}")
                table[full] = (mcp, tool)
        return table

    async def step(self, messages):
        """One null-harness segment on the conversation (system messages kept) plus `messages`."""
        self.conversation.extend(messages)
        self.trace.nodes.extend((m, False) for m in messages)
        dispatch = self.dispatch()
        out["advertised_tools"] = sorted(dispatch)
        while True:
            if self.agent.max_turns is not None and self.trace.num_turns >= self.agent.max_turns:
                self.trace.stop("max_turns")
                return
            if self.trace.stop_condition:
                return
            reply = self.agent.model(self.conversation)
            self.conversation.append(reply)
            self.trace.nodes.append((reply, True))
            if not reply.tool_calls:
                return
            for call in reply.tool_calls:
                args = json.loads(call.arguments or "{}")
                if call.name in dispatch:
                    mcp, raw = dispatch[call.name]
                    content = await mcp.call_tool(raw, args)
                else:
                    content = f"error: unknown tool {call.name!r}"
                message = ToolMessage(tool_call_id=call.id, content=content)
                self.conversation.append(message)
                self.trace.nodes.append((message, False))

    async def close(self):
        if self.closed:
            return self.trace
        self.closed = True
        self.mcp.clear()  # the tool servers go down
        if self.ok:
            await self.task.finalize(self.trace, None)
        self.trace.is_completed = True
        self.trace.ok = self.ok
        return self.trace


async def launch(server, task, trace):
    """`python -m <module>` with VF_CONFIG; then setup(), setup_task(data from /task), register(mcp)."""
    module = type(server).__module__
    if module not in LAUNCHED_BY_MODULE:
        LAUNCHED.clear()
        runpy.run_module(module, run_name="__main__")
        check(len(LAUNCHED) == 1, f"`python -m {module}` started {len(LAUNCHED)} tool servers")
        LAUNCHED_BY_MODULE[module] = LAUNCHED[0]
    cls = LAUNCHED_BY_MODULE[module]
    config_cls = concrete_type(cls, BaseConfig)
    instance = cls(config_cls.model_validate_json(server.config.model_dump_json()))

    def get_state():
        return trace.state.model_dump_json()

    def put_state(text):
        trace.state = type(trace.state).model_validate_json(text)

    instance._channel = (get_state, put_state)
    await instance.setup()
    await instance.setup_task(type(task.data).model_validate_json(task.data.model_dump_json()))
    mcp = FakeMCP()
    instance.register(mcp)
    return mcp


LAUNCHED_BY_MODULE: dict = {}


class Interaction:
    def __init__(self, run):
        self._run, self._over, self._started = run, False, False

    @property
    def trace(self):
        return self._run.trace

    async def turn(self, message=None):
        check(not self._run.closed and not self._over, "turn() on a closed exchange")
        prompted = not self._started and self.trace.task.data.prompt is not None
        check(message is not None or prompted, "a bare turn() on a prompt-less task")
        check(message is None or not prompted, "the task's prompt opens this exchange")
        messages = [UserMessage(content=message)] if isinstance(message, str) else [parse_message(m) if isinstance(m, dict) else m for m in message]
        self._started = True
        before, nodes_before = self.trace.num_turns, len(self.trace.nodes)
        if self._run.ok:
            try:
                await self._run.step(messages)
            except Exception as e:
                self._run.fail(e)
        if self.trace.num_turns > before:
            seg, saw = [], False
            for m, sampled in self.trace.nodes[nodes_before:]:
                if sampled:
                    seg.append(m)
                    saw = True
                elif saw and isinstance(m, ToolMessage):
                    seg.append(m)
            return Segment(seg)
        self._over = True
        return Segment([], terminated=True)

    async def close(self):
        if not self._run.closed and self._run.ok:
            self.trace.stop("user_closed")
        return await self._run.close()


class Agent:
    def __init__(self, name, config, model, completed):
        self.name, self.config, self.model, self.completed = name, config, model, completed
        self.max_turns = config.max_turns

    @contextlib.asynccontextmanager
    async def interaction(self, task):
        run = Rollout(task, self, has_user=True)
        interaction = Interaction(run)
        try:
            if not await run.open():
                await run.close()
                raise run.failure
            try:
                yield interaction
            except Exception as e:
                run.fail(e)
                raise
            finally:
                if not run.closed:
                    await interaction.close()
        finally:
            self.completed.append(run.trace)


class Agents:
    def __init__(self, config, make):
        self._agents = {n: make(n, getattr(config, n)) for n in type(config).fields() if isinstance(getattr(config, n), AgentConfig)}

    def __getattr__(self, name):
        agents = self.__dict__.get("_agents")
        if agents is None or name not in agents:
            raise AttributeError(f"no agent {name!r}")
        return agents[name]


class Env(Generic[ConfigT]):
    def __init__(self, config):
        config_cls = concrete_type(type(self), EnvConfig) or EnvConfig
        check(isinstance(config, config_cls), f"{type(self).__name__} declares Env[{config_cls.__name__}]")
        self.config = config
        self.taskset = load_taskset(config.taskset)
        roles = [n for n, f in type(config).fields().items() if isinstance(f.default, AgentConfig)]
        check(roles, "the env declares no agents")
        for n in roles:
            h = getattr(config, n).harness
            check(h is None or h.id in HARNESSES, f"harness {h}")

    async def setup(self, agents):
        return None

    async def finalize(self, task, episode):
        return None

    async def run_episode(self, task, model):
        episode = Episode()
        agents = Agents(self.config, lambda name, spec: Agent(name, spec, model, episode.traces))
        try:
            await self.setup(agents)
            await self.run(task, agents)
            if not episode.traces:
                raise ValueError("run() ran no agent")
        except Exception as e:  # the episode boundary records every hook failure
            episode.errors.append(Error(type=type(e).__name__, message=str(e)))
            return episode
        await self.finalize(task, episode)
        episode.ok = all(t.ok for t in episode.traces)
        return episode


class SingleAgentEnvConfig(EnvConfig):
    agent: AgentConfig = AgentConfig()


class SingleAgentEnv(Env[SingleAgentEnvConfig]):
    pass


def install():
    vf = types.ModuleType("verifiers.v1")
    for name in ("BaseConfig", "AgentConfig", "HarnessConfig", "SubprocessConfig", "ToolsetConfig", "TaskConfig", "TasksetConfig", "EnvConfig", "TaskData", "State", "Task", "Taskset", "Toolset", "Env", "AssistantMessage", "ToolMessage", "UserMessage", "SystemMessage", "ToolCall"):
        setattr(vf, name, globals()[name])
    vf.load_taskset = load_taskset
    root_pkg = types.ModuleType("verifiers")
    root_pkg.__path__ = []
    root_pkg.v1 = vf
    vf.__path__ = []
    tasksets = types.ModuleType("verifiers.v1.tasksets")
    tasksets.__path__ = []
    sys.modules.update({"verifiers": root_pkg, "verifiers.v1": vf, "verifiers.v1.tasksets": tasksets})


install()


# ================= prime-rl (stand-in) =================
class Orchestrator:
    """Loads the taskset client-side from the TOML's env block and dispatches episodes to the env server."""

    def __init__(self, env_block):
        self.env_data = env_block
        config = resolve_env_config(json.loads(json.dumps(env_block)))
        taskset = load_taskset(config.taskset)
        self.tasks = list(taskset)
        self.server = EnvServer(config.model_dump(mode="json"))

    async def episode(self, task, model):
        wire = task.data.model_dump(mode="json")
        episode = await self.server.run(json.loads(json.dumps(wire)), model)
        for trace in episode.traces:
            if not episode.ok and trace.ok:
                trace.errors.append(Error(type="EpisodeFailed", message="A sibling trace in this episode failed"))
                trace.ok = False
        return episode


class EnvServer:
    def __init__(self, config_data):
        self.env = load_environment(resolve_env_config(config_data))

    async def run(self, task_data, model):
        task_cls = type(self.env.taskset).task_type()
        task = task_cls(task_cls.data_type().model_validate(task_data), self.env.taskset.config.task)
        return await self.env.run_episode(task, model)


def trained(episode):
    """What prime-rl trains on: the ok traces and their reward."""
    return [t.reward for t in episode.traces if t.ok]


def scripted(turns, on_call=None):
    """The policy replays a trajectory: one turn per model call of the episode."""

    def model(conversation):
        n = sum(1 for m in conversation if isinstance(m, AssistantMessage))
        if on_call:
            on_call(n)
        turn = turns[n] if n < len(turns) else {"text": "I am done."}
        calls = [ToolCall(id=f"call_{n}_{i}", name=c["name"], arguments=json.dumps(c["arguments"])) for i, c in enumerate(turn.get("calls", []))]
        return AssistantMessage(content=turn.get("text", ""), tool_calls=calls or None)

    return model


EXAMPLE = os.path.join(root, "examples", "trainers", "prime-rl.rubricate.toml")


def orchestrator(**overrides):
    source = tomllib.load(open(EXAMPLE, "rb"))["orchestrator"]["train"]["source"][0]
    env_block = source["env"]
    env_block["taskset"]["url"] = URL
    env_block["taskset"]["task_ids"] = list(TRAJECTORIES)
    for key, value in overrides.items():
        env_block.setdefault("player", {})[key] = value
    return Orchestrator(env_block)


def open_sessions():
    return http("GET", "/v1/sessions")["open"]


def summary(episode):
    return {"ok": episode.ok, "errors": [e.type for e in episode.errors], "trained": trained(episode), "traces": [{"ok": t.ok, "rewards": {k: r.value for k, r in t.rewards.items()}, "errors": [e.type for e in t.errors]} for t in episode.traces]}


# ================= scenarios =================
def scenario_play():
    orch = orchestrator()
    by_task = {t.data.ref["task_id"]: t for t in orch.tasks}
    check(sorted(by_task) == sorted(TRAJECTORIES), f"tasks {sorted(by_task)}")

    async def play(tasks):
        return await asyncio.gather(*[orch.episode(by_task[t], scripted(TRAJECTORIES[t])) for t in tasks])

    episodes = asyncio.run(play(list(TRAJECTORIES)))
    out["v1"] = {t: e.traces[0].rewards["rubricate"].value if e.ok else summary(e) for t, e in zip(TRAJECTORIES, episodes)}
    out["v1_trained"] = [trained(e) for e in episodes]
    out["v1_metrics"] = sorted(episodes[0].traces[0].metrics)
    many = [list(TRAJECTORIES)[i % len(TRAJECTORIES)] for i in range(MANY)]
    out["tasks_64"] = many
    out["v1_64"] = [e.traces[0].reward if e.ok else summary(e) for e in asyncio.run(play(many))]
    # Without task_ids: one task per task of the server's environment, by index.
    source = tomllib.load(open(EXAMPLE, "rb"))["orchestrator"]["train"]["source"][0]["env"]
    source["taskset"]["url"] = URL
    out["v1_rows"] = len(Orchestrator(source).tasks)
    out["open_after"] = open_sessions()


def scenario_cut():
    """The player's max_turns=1: v1 stops the run; the session is scored as it stands and closed."""
    orch = orchestrator(max_turns=1)
    long_task = max(TRAJECTORIES, key=lambda t: len(TRAJECTORIES[t]))
    task = next(t for t in orch.tasks if t.data.ref["task_id"] == long_task)
    episode = asyncio.run(orch.episode(task, scripted(TRAJECTORIES[long_task])))
    out["v1_cut"] = summary(episode)
    # The same first turn played on a session directly, then scored: what "as it stands" means.
    import rubricate_env

    client = rubricate_env.EnvClient()
    sid = client.open(task_id=long_task)["session_id"]
    first = TRAJECTORIES[long_task][0]
    for call in first.get("calls", []):
        client.call_tool(sid, call["name"], call["arguments"])
    if "calls" not in first:
        client.step(sid, first["text"])
    out["direct_cut"] = client.reward_of(client.finish(sid))
    client.close(sid)

    # The server answers a finish without a reward (its judge failed: `reward: null` and the errors):
    # the episode fails rather than train on a made-up number.
    original = rubricate_env.EnvClient.finish

    def judge_failed(self, session_id, response=None):
        finished = original(self, session_id, response)
        return {**finished, "reward": None, "errors": [{"criterion": "polite", "code": "JUDGE_FAILED", "message": "stand-in"}]}

    rubricate_env.EnvClient.finish = judge_failed
    try:
        full = orchestrator()
        task = next(t for t in full.tasks if t.data.ref["task_id"] == long_task)
        out["v1_no_reward"] = summary(asyncio.run(full.episode(task, scripted(TRAJECTORIES[long_task]))))
    finally:
        rubricate_env.EnvClient.finish = original
    out["open_after"] = open_sessions()


def scenario_fail():
    """The server goes away mid-episode (FAIL=kill: SIGKILLed; FAIL=expire: the session is closed under the trainer)."""
    how = os.environ["FAIL"]
    orch = orchestrator()
    name = next(t for t in TRAJECTORIES if len(TRAJECTORIES[t]) >= 2)
    task = next(t for t in orch.tasks if t.data.ref["task_id"] == name)

    def kill(n):
        if n == 1:  # the model's second call: the session has played a turn
            os.kill(int(os.environ["SERVE_PID"]), 9)

    if how == "expire":
        broken_ids = []

        def expire(n):
            if n == 1:
                for sid in list(SESSIONS_SEEN):
                    http("DELETE", f"/v1/sessions/{sid}")
                    broken_ids.append(sid)

        episode = asyncio.run(orch.episode(task, scripted(TRAJECTORIES[name], expire)))
        out["expired"] = len(broken_ids)
        out["v1_failed"] = summary(episode)
        out["v1_recovered"] = summary(asyncio.run(orch.episode(task, scripted(TRAJECTORIES[name]))))
        out["open_after"] = open_sessions()
    else:
        out["v1_failed"] = summary(asyncio.run(orch.episode(task, scripted(TRAJECTORIES[name], kill))))


def scenario_limit():
    """429: the server's session cap is full; the episode fails cleanly (no trace trained), then recovers."""
    import rubricate_env

    orch = orchestrator()
    task = orch.tasks[0]
    client = rubricate_env.EnvClient(retries=0)
    held = []
    while True:
        try:
            held.append(client.open(**task.data.ref)["session_id"])
        except rubricate_env.RubricateEnvError as e:
            out["cap_status"] = e.status
            break
    out["v1_limited"] = summary(asyncio.run(orch.episode(task, scripted(TRAJECTORIES[task.data.ref["task_id"]]))))
    for sid in held:
        client.close(sid)
    out["v1_recovered"] = summary(asyncio.run(orch.episode(task, scripted(TRAJECTORIES[task.data.ref["task_id"]]))))
    out["open_after"] = open_sessions()


# The sessions the adapter opens, seen from its client (to expire them under it).
SESSIONS_SEEN: list = []


def watch_sessions():
    import rubricate_env

    original = rubricate_env.EnvClient.open

    def open_(self, *args, **kwargs):
        opened = original(self, *args, **kwargs)
        SESSIONS_SEEN.append(opened["session_id"])
        return opened

    rubricate_env.EnvClient.open = open_


SCENARIOS = {"play": scenario_play, "cut": scenario_cut, "fail": scenario_fail, "limit": scenario_limit}


def loaded_by_a_scenario(module):
    """An adapter (a file of examples/trainers, e.g. rubricate_v1 as the loader imports it)."""
    path = getattr(module, "__file__", None)
    return bool(path) and path.startswith(os.path.join(root, "examples", "trainers") + os.sep)


def main(specs):
    """Runs `<scenario>[:<FAIL>][=<url>]` specs in order; prints {spec name: output, or {"error": traceback}}.

    Each scenario plays against its own server (`=<url>`, else $RUBRICATE_ENV_URL), with a fresh
    import of the adapter and no tool server launched yet, as a fresh interpreter would start (the
    stand-ins above and the patched EnvClient.open are shared). A scenario that raises is reported
    and the next one runs. Each scenario's stderr follows a `--- scenario <name>` line.
    """

    def set_url(url):
        global URL
        URL = url

    run_scenarios(specs, SCENARIOS, out, URL, set_url, loaded_by_a_scenario, reset=lambda: (LAUNCHED_BY_MODULE.clear(), SESSIONS_SEEN.clear()))


watch_sessions()
main(sys.argv[1:])
