"""A verifiers v1 environment (taskset, env and tool server) that plays a rubricate environment.

    # this folder on PYTHONPATH (or the file copied into an installed environment package)
    [orchestrator.train.source.env.taskset]      # prime-rl: examples/trainers/prime-rl.rubricate.toml
    id = "rubricate-v1"
    url = "http://127.0.0.1:8000"                # `rubricate serve --env env.yaml`; token: $RUBRICATE_TOKEN

The v1 API (``verifiers.v1``, what prime-rl imports; read from PrimeIntellect-ai/verifiers
a60a606 and prime-rl 559b447, nothing copied). The contract this module keeps:

* Loading. ``--env.taskset.id rubricate-v1`` imports the module ``rubricate_v1`` (owner/ and
  @version stripped, "-" -> "_", ``verifiers.v1.tasksets.<name>`` tried first) and takes from its
  ``__all__`` exactly one ``Taskset`` subclass and, when there is one, exactly one ``Env``
  subclass (``utils/loaders.py``: ``taskset_class``, ``environment_class``); the env config is
  narrowed to the ``Env``'s declared config (``RubricateEnvConfig``: one role, ``player``).
* prime-rl's orchestrator (``orchestrator/envs.py``) loads the taskset client-side
  (``vf.load_taskset(config.env.taskset)``, ``list(taskset)`` in a thread), and sends each
  task's ``TaskData`` as JSON to the env server (``entrypoints/env_server.py``: ``serve_env``),
  which validates it into ``RubricateData`` and calls ``Env.run_episode(task, ctx)``:
  ``setup(agents)``, ``run(task, agents)``, ``finalize``. An exception out of ``run`` is not a
  crash: it lands on ``episode.errors`` with ``ok`` False, and prime-rl marks the episode's
  traces failed and leaves them out of training (``dispatcher.py``, ``train_sink.py``).
* ``agents.player.interaction(task)`` opens a rollout (runtime, ``Task.setup``, the task's tool
  servers from ``Task.toolsets``, the harness) and yields an ``Interaction``; a task with
  ``prompt=None`` is opened by the caller's first ``turn(messages)``; each ``turn`` runs one
  harness segment: the model's turns and its tool calls (the ``null`` harness: chat, MCP tool
  calls, until a reply without tool calls) and returns a ``Segment`` (``messages``,
  ``last_reply``, ``terminated`` when a limit, ``@stop`` or failure ended the run instead).
  An exception inside the ``async with`` fails the trace and is raised again.
* Tool servers (``Toolset``, ``mcp/server.py``) run as ``python -m <module>`` with the task's
  data from the rollout's ``/task`` channel (``setup_task``), tools added in ``register(mcp)``;
  ``TOOL_PREFIX = None`` advertises bare names. Each call first pulls the rollout's state (a
  ``vf.State`` subclass, over ``/state``) and pushes it back when changed; a tool that raises
  reaches the model as an error text. The subprocess runtime passes the environment on
  (``RUBRICATE_TOKEN``, ``RUBRICATE_ENV_URL``; names with API_KEY are dropped).
* Model calls go through v1's interception server, which records tokens and logprobs on the
  trace itself; no model call or logprob passes through this module, so none can be lost.

What it does: one task per task of the server's environment (``task_index``, or the
``task_ids`` given); ``run`` opens the task's session, hands its system prompt and first
messages to the player as the first turn, sends each segment's final reply to the session
(``step``) and the environment's answer back as the next turn, until the session is done or
v1 ended the run; tools go straight to the session from the tool server. It then finishes the
session and records ``rubricate`` (the reward, weight 1) and ``rubricate/<criterion>`` metrics.
A run v1 ended itself (``max_turns``, a token limit) is scored as it stands. Failures (server
unreachable past retries, a 429 past retries, an expired session, a reward the judge could not
give) raise, so the episode fails instead of training on a made-up 0; the session is closed
however the episode ended.
"""

import asyncio
import functools
import os
import sys
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verifiers.v1 as vf  # noqa: E402

from rubricate_env import EnvClient, _tool_method, describe_env, episode_logs, reply_text, strip_end_markers  # noqa: E402

__all__ = ["RubricateEnv", "RubricateTaskset"]


class RubricateTaskConfig(vf.TaskConfig):
    tools: vf.ToolsetConfig = vf.ToolsetConfig()
    """Where each rollout's tool server runs (`--env.taskset.task.tools.*`)."""
    serve_tools: bool = True
    """False for an environment without tools: no tool server is started per rollout."""


class RubricateConfig(vf.TasksetConfig):
    url: Optional[str] = None
    """`rubricate serve --env` (default $RUBRICATE_ENV_URL, else http://127.0.0.1:8000); the token only from $RUBRICATE_TOKEN."""
    task_ids: Optional[list[str]] = None
    """The environment's tasks to play (default: all of them)."""
    task: RubricateTaskConfig = RubricateTaskConfig()


class RubricateData(vf.TaskData):
    ref: dict
    """The task on the server: {"task_id": ...} or {"task_index": i}."""
    tools: list[dict] = []
    """The environment's tools (OpenAI function schemas), for the tool server."""


class RubricateState(vf.State):
    session_id: Optional[str] = None
    url: Optional[str] = None
    done: bool = False
    """A tool call ended the episode (a submission, say)."""


class RubricateToolset(vf.Toolset[vf.ToolsetConfig, RubricateState]):
    """The environment's tools, each forwarded to the rollout's session (`POST /v1/sessions/:id/tools/:name`)."""

    TOOL_PREFIX = None  # the environment's own tool names, as `rubricate eval` offers them

    def __init__(self, config: vf.ToolsetConfig) -> None:
        super().__init__(config)
        self.tools: list[dict] = []

    async def setup_task(self, task: Any) -> None:
        self.tools = list(task.tools)

    def register(self, mcp: Any) -> None:
        for tool in self.tools:
            _, method = _tool_method(tool)
            bound = method.__get__(self)

            # The HTTP call blocks: off the server's event loop. functools.wraps keeps the typed signature FastMCP reads.
            @functools.wraps(bound)
            async def call(*args: Any, _bound: Any = bound, **kwargs: Any) -> str:
                return await asyncio.to_thread(_bound, *args, **kwargs)

            fn = tool["function"]
            mcp.add_tool(self._with_state(call), name=fn["name"], description=fn.get("description") or fn["name"])

    def _call_tool(self, name: str, arguments: dict) -> str:
        state = self.state
        if not state.session_id:
            raise RuntimeError("rubricate: this rollout has no session (RubricateEnv.run opens it)")
        result = EnvClient(state.url).call_tool(state.session_id, name, arguments)
        if result.get("done"):
            state.done = True
        return result["result"] + ("\n(The episode is over.)" if result.get("done") else "")


class RubricateTask(vf.Task[RubricateData, RubricateState, RubricateTaskConfig]):
    @classmethod
    def toolsets(cls, config: RubricateTaskConfig) -> list:
        return [RubricateToolset(config.tools)] if config.serve_tools else []


class RubricateTaskset(vf.Taskset[RubricateTask, RubricateConfig]):
    def load(self) -> list:
        described = describe_env(EnvClient(self.config.url))
        env_id = described["env"]["id"]
        if self.config.task_ids:
            refs = [({"task_id": t}, f"{env_id}/{t}") for t in self.config.task_ids]
        else:
            refs = [({"task_index": i}, f"{env_id}#{i}") for i in range(int(described.get("task_count", 1)))]
        tools = list(described.get("tools") or [])
        # prompt=None: the session opens the conversation (its system prompt and first message), in run().
        return [RubricateTask(RubricateData(idx=i, name=name, ref=ref, tools=tools), self.config.task) for i, (ref, name) in enumerate(refs)]


class RubricateEnvConfig(vf.EnvConfig):
    # A chat loop with MCP tools (the `null` harness) on the host: the environment runs the tools, sandboxed on its side.
    player: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime={"type": "subprocess"})


def _opening(opened: dict) -> list:
    system = [{"role": "system", "content": opened["system"]}] if opened.get("system") else []
    return system + list(opened.get("few_shot") or []) + [{"role": m["role"], "content": m.get("content") or ""} for m in opened.get("messages", [])]


def _cut(segment: Any) -> bool:
    """The segment ended on tool calls (a limit stopped the run mid-turn): there is no reply to send."""
    last = next((m for m in reversed(segment.messages) if getattr(m, "role", None) == "assistant"), None)
    return last is None or bool(getattr(last, "tool_calls", None))


class RubricateEnv(vf.Env[RubricateEnvConfig]):
    async def run(self, task: Any, agents: Any) -> None:
        client = EnvClient(self.taskset.config.url)
        opened = await asyncio.to_thread(client.open, **task.data.ref)
        session = opened["session_id"]
        try:
            async with agents.player.interaction(task) as interaction:
                state = interaction.trace.state
                state.session_id, state.url = session, client.url
                segment = await interaction.turn(_opening(opened))
                while not segment.terminated and not interaction.trace.state.done and not _cut(segment):
                    stepped = await asyncio.to_thread(client.step, session, strip_end_markers(segment.last_reply))
                    if stepped.get("done"):
                        break
                    segment = await interaction.turn(reply_text(stepped))
            trace = interaction.trace
            if not trace.ok:
                return  # v1 failed the run (its error is on the trace): nothing to score
            finished = await asyncio.to_thread(client.finish, session)
            reward = client.reward_of(finished)
            if reward is None:
                reasons = "; ".join(f"{e.get('criterion')}: {e.get('code')}" for e in finished.get("errors", []))
                raise RuntimeError(f"rubricate: no reward for session {session} ({reasons or 'no reason given'})")
            trace.record_reward("rubricate", reward, 1.0)
            logs = episode_logs(opened.get("criteria") or [], finished)
            trace.record_metrics({k: v for k, v in logs.items() if k.startswith("rubricate/")})
            trace.info["rubricate"] = {"session_id": session, "stop_reason": finished.get("stop_reason")}
        finally:
            await asyncio.to_thread(client.close, session)


if __name__ == "__main__":  # how v1 starts a rollout's tool server: `python -m rubricate_v1`, config in $VF_CONFIG
    RubricateToolset.run()
