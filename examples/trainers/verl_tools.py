"""verl tools that forward to a rubricate environment's session (``rubricate serve --env env.yaml``).

verl sends a model's tool calls to its own tool registry, never to the interaction
(``tool_agent_loop.py``: ``self.tools[tool_name]``), so each environment tool is registered with
verl as one ``RubricateTool`` whose schema is the environment's. Write the registry file with

    python3 examples/trainers/verl_tools.py --url http://127.0.0.1:8000 > rubricate_tools.yaml
    # actor_rollout_ref.rollout.multi_turn.tool_config_path=rubricate_tools.yaml  (this folder on PYTHONPATH)

and run the rubricate interaction too (``verl_interaction.py``): it opens each trajectory's
session, and the tools find it by the trajectory's request id.

verl's contract (volcengine/verl b178a3c, ``tools/utils/tool_registry.py``, ``tools/base_tool.py``,
``tools/schemas.py``): ``initialize_tools_from_config`` imports ``class_name`` by module name and
builds ``cls(config=<config as dict>, tool_schema=OpenAIFunctionToolSchema)`` once per entry
(``config.type: native``); the schema is pydantic: ``function.description`` is required and each
property is ``{type: str, description?: str, enum?: list[str]}`` (other keywords are dropped, so
the server, which validates against the full schema, still refuses bad arguments). Per call,
``_call_tool`` runs ``create(create_kwargs=...)`` -> ``execute(instance_id, arguments: dict,
agent_data=AgentData)`` -> ``release(instance_id)`` and turns any exception into the tool message
"Error when executing tool: ..." (0.0 reward) for the model to read.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rubricate_env import VERL_SESSIONS, EnvClient, describe_env  # noqa: E402

CLASS_NAME = "verl_tools.RubricateTool"


def verl_tool_schema(tool: dict) -> dict:
    """An environment tool's OpenAI schema in the subset verl's pydantic models accept."""
    fn = tool["function"]
    params = fn.get("parameters") or {}
    props = {}
    for name, schema in (params.get("properties") or {}).items():
        kind = schema.get("type") if isinstance(schema.get("type"), str) else "string"
        prop: dict = {"type": kind}
        if schema.get("description"):
            prop["description"] = schema["description"]
        if isinstance(schema.get("enum"), list) and all(isinstance(v, str) for v in schema["enum"]):
            prop["enum"] = schema["enum"]
        props[name] = prop
    return {"type": "function", "function": {"name": fn["name"], "description": fn.get("description") or f"The {fn['name']} tool.", "parameters": {"type": "object", "properties": props, "required": list(params.get("required") or [])}}}


def tool_config(url: str | None = None) -> dict:
    """verl's tool registry file for the environment behind ``url``: one entry per environment tool."""
    client = EnvClient(url)
    # No token here: the tool reads $RUBRICATE_TOKEN where it runs (a secret never goes in a file).
    config: dict = {"type": "native", "url": client.url}
    return {"tools": [{"class_name": CLASS_NAME, "config": config, "tool_schema": verl_tool_schema(t)} for t in describe_env(client).get("tools", [])]}


try:
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import ToolResponse
except ImportError:  # writing the registry file needs no verl
    BaseTool = object  # type: ignore[assignment,misc]
    ToolResponse = None  # type: ignore[assignment]


class RubricateTool(BaseTool):  # type: ignore[misc,valid-type]
    """One environment tool: runs the call in the trajectory's rubricate session."""

    def __init__(self, config: dict, tool_schema: Any):
        super().__init__(config, tool_schema)
        self.client = EnvClient(config.get("url"), config.get("token"))

    async def execute(self, instance_id: str, parameters: dict, **kwargs: Any) -> tuple:
        agent_data = kwargs.get("agent_data")
        entry = VERL_SESSIONS.get(getattr(agent_data, "request_id", None))
        if entry is None or entry["session_id"] is None:
            # verl shows this to the model as "Error when executing tool: ..."; the trajectory's score says the rest.
            raise RuntimeError("no rubricate session for this trajectory (run the rubricate interaction: interaction_config_path)")
        result = await asyncio.to_thread(self.client.call_tool, entry["session_id"], self.name, parameters)
        if result.get("done"):
            entry["done"] = True  # e.g. submit: the interaction scores the session at the next plain turn
        return ToolResponse(text=result["result"]), 0.0, {}


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Write verl's tool registry file (JSON, which is YAML) for a rubricate environment server.")
    parser.add_argument("--url", default=None, help="the server (default $RUBRICATE_ENV_URL, else http://127.0.0.1:8000)")
    args = parser.parse_args()
    sys.stdout.write("# verl tool registry (multi_turn.tool_config_path) for a rubricate environment, written by\n# examples/trainers/verl_tools.py; JSON is YAML. Put examples/trainers on PYTHONPATH.\n")
    json.dump(tool_config(args.url), sys.stdout, indent=2)
    sys.stdout.write("\n")
