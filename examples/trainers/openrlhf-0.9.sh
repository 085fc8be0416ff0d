#!/usr/bin/env bash
# OpenRLHF 0.9.x (flat flags) with rubricate as its remote reward model. 0.9 sends the whole
# rollout batch in one request (rollout_batch_size x n_samples_per_prompt queries, split across
# the --remote_rm_url list): serve accepts 16,384 samples and 128 MiB per request by default.
# For OpenRLHF >= 0.10.2 use openrlhf.sh (the flags were renamed).
set -euo pipefail

npx rubricate serve --rubric rubrics/math-answer.yaml --judge judges/openai-small.yaml --port 5000 &
SERVER=$!
trap 'kill -TERM $SERVER; wait $SERVER' EXIT
until curl -sf http://127.0.0.1:5000/healthz > /dev/null; do sleep 0.5; done

python3 -m openrlhf.cli.train_ppo_ray \
  --pretrain Qwen/Qwen2.5-7B-Instruct \
  --prompt_data your/math-dataset \
  --input_key problem \
  --label_key answer \
  --apply_chat_template \
  --remote_rm_url http://127.0.0.1:5000/get_reward \
  --advantage_estimator group_norm \
  --n_samples_per_prompt 8 \
  --rollout_batch_size 1024 \
  --dynamic_filtering --dynamic_filtering_reward_range 0 1 \
  --save_path ./checkpoints/rubricate-grpo
