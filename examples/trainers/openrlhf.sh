#!/usr/bin/env bash
# OpenRLHF >= 0.10.2 (dotted flags) with rubricate as its remote reward model.
# For OpenRLHF 0.9.x (flat flags: --remote_rm_url, --label_key, ...) use openrlhf-0.9.sh.
# 1. Start the reward server on the node where OpenRLHF's rollout workers run (loopback: no token
#    needed; OpenRLHF's client sends no Authorization header).
# 2. Point --reward.remote_url at POST /get_reward. --data.label_key names the dataset column sent
#    as `labels` (here the reference answer); the prompt (chat template applied) is sent as
#    `prompts`. rubrics/math-answer.yaml's inputs are problem, response and answer: problem <-
#    prompts, answer <- labels by default (serve refuses to start if an input is fed by nothing).
set -euo pipefail

npx rubricate serve --rubric rubrics/math-answer.yaml --judge judges/openai-small.yaml --port 5000 &
SERVER=$!
trap 'kill -TERM $SERVER; wait $SERVER' EXIT   # SIGTERM: in-flight requests finish, the cache closes
until curl -sf http://127.0.0.1:5000/healthz > /dev/null; do sleep 0.5; done

python3 -m openrlhf.cli.train_ppo_ray \
  --actor.model_name_or_path Qwen/Qwen2.5-7B-Instruct \
  --data.prompt_dataset your/math-dataset \
  --data.input_key problem \
  --data.label_key answer \
  --data.apply_chat_template \
  --reward.remote_url http://127.0.0.1:5000/get_reward \
  --algo.advantage.estimator group_norm \
  --rollout.n_samples_per_prompt 8 \
  --algo.dynamic_filtering_enable --algo.dynamic_filtering_range 0 1 \
  --ckpt.output_dir ./checkpoints/rubricate-grpo
