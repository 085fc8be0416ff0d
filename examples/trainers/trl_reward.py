"""A TRL `reward_funcs` callable backed by `rubricate serve` (stdlib only).

    from trl import GRPOConfig, GRPOTrainer
    from trl_reward import RubricateReward

    reward = RubricateReward("http://127.0.0.1:8000", columns={"solution": "answer"})
    trainer = GRPOTrainer(model=..., reward_funcs=[reward], args=GRPOConfig(...), train_dataset=...)

GRPOTrainer calls `reward(prompts=..., completions=..., completion_ids=..., **columns)`, where
each extra dataset column arrives as a list parallel to `completions`. Both dataset formats work:
plain (prompts and completions are strings) and conversational (lists of {"role", "content"}
messages; the prompt text is the last user message, the completion text the assistant's).
A reward the server could not compute is None: TRL turns None into NaN and sums rewards with
nansum; a completion every function left NaN is "unscorable" (out of its group's baseline, its
advantage forced to 0, a warning logged). The reasons of the last call are in
`reward.last_errors`, and when TRL passes `log_metric` (GRPOTrainer does) the share of
completions without a reward is logged as `rubricate/error_rate`. A judge outage (the server's
503, retried with its Retry-After) raises, which stops training rather than feeding it NaNs.
"""
from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Sequence

from rubricate_client import RubricateClient, message_text

__all__ = ["RubricateReward", "message_text"]

log = logging.getLogger("rubricate")


class RubricateReward:
    """`(prompts, completions, **kwargs) -> list[float | None]` for TRL's GRPOTrainer and RLOOTrainer."""

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        prompt_field: Optional[str] = "question",
        response_field: Optional[str] = None,
        columns: Optional[Dict[str, str]] = None,
        name: str = "rubricate",
        **client_options: Any,
    ) -> None:
        """`columns` renames dataset columns to rubric inputs ({"solution": "answer"}); columns
        already named like a rubric input are sent as they are. `prompt_field` receives the prompt
        text when the rubric has that input. `response_field` defaults to the server's."""
        self.client = RubricateClient(url, token, **client_options)
        self.prompt_field = prompt_field
        self.response_field = response_field
        self.columns = dict(columns or {})
        self.__name__ = name  # TRL logs each reward function under its __name__
        self.last_errors: List[Optional[str]] = []

    def samples(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> List[Dict[str, Any]]:
        """The samples a call sends: rubric inputs built from prompts, completions and columns."""
        info = self.client.info()
        inputs = set(info.get("inputs", []))
        response_field = self.response_field or info.get("response_field", "response")
        n = len(completions)
        rows: List[Dict[str, Any]] = [{} for _ in range(n)]
        for column, values in kwargs.items():
            target = self.columns.get(column, column)
            if target not in inputs or target == response_field or not isinstance(values, (list, tuple)) or len(values) != n:
                continue
            for row, value in zip(rows, values):
                row[target] = value
        for i, row in enumerate(rows):
            if self.prompt_field and self.prompt_field in inputs and self.prompt_field not in row and prompts is not None:
                row[self.prompt_field] = message_text(prompts[i], "user")
            row[response_field] = message_text(completions[i], "assistant")
        return rows

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> List[Optional[float]]:
        log_metric = kwargs.pop("log_metric", None)
        rewards, errors = self.client.rewards(self.samples(prompts, completions, **kwargs))
        self.last_errors = errors
        failed = sum(1 for e in errors if e)
        if callable(log_metric) and errors:
            log_metric("%s/error_rate" % self.__name__, failed / len(errors))
        if failed:
            first = next(e for e in errors if e)
            log.warning("rubricate: %d of %d completions have no reward (first: %s)", failed, len(errors), first)
        return [None if r is None else float(r) for r in rewards]
