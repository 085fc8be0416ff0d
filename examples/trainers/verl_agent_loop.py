"""verl's tool agent loop, ending every rubricate session with its trajectory.

``ToolAgentLoop.run`` returns without a word to the interaction when it stops a trajectory
itself (``max_assistant_turns``, ``max_user_turns``, ``response_length``), and on an exception.
This subclass runs the same loop and then, for a session still open, scores it (the episode as
it stands, as ``rubricate eval`` scores an episode cut at ``max_turns``), appends the reward to
``turn_scores`` and closes it; after an exception it closes it.

    # agent_loop_config.yaml (actor_rollout_ref.rollout.agent.agent_loop_config_path)
    - name: rubricate_agent
      _target_: verl_agent_loop.RubricateAgentLoop        # this folder on PYTHONPATH
    # and actor_rollout_ref.rollout.agent.default_agent_loop=rubricate_agent

verl instantiates the class with hydra (``_target_``) and awaits ``run(sampling_params, **kwargs)``,
which returns an ``AgentLoopOutput`` whose ``extra_fields["turn_scores"]`` reaches the reward
function as ``extra_info["turn_scores"]``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from verl_interaction import STARTED  # noqa: E402

from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop  # noqa: E402


class RubricateAgentLoop(ToolAgentLoop):
    async def run(self, sampling_params: dict, **kwargs: Any) -> Any:
        started: list = []
        token = STARTED.set(started)
        try:
            output = await super().run(sampling_params, **kwargs)
        except BaseException:
            for interaction, instance_id in started:
                await interaction.finalize_interaction(instance_id)
            raise
        finally:
            STARTED.reset(token)
        for interaction, instance_id in started:
            reward = await interaction.end_episode(instance_id)  # None when it already ended
            if reward is not None:
                output.extra_fields.setdefault("turn_scores", []).append(reward)
        return output
