#!/usr/bin/env bash
# OpenRLHF with rubricate as its remote reward model.
# 1. Start the reward server on the node where OpenRLHF's rollout workers run (loopback: no token
#    needed; OpenRLHF's remote-RM client sends no Authorization header).
# 2. Point --remote_rm_url at POST /get_reward. --label_key names the dataset column sent as
#    `labels` (here the reference answer); rubricate puts it in the rubric input named by
#    --label-field (default: the first of reference/answer/label/ground_truth/solution/target).
set -euo pipefail

npx rubricate serve --rubric rubrics/math-answer.yaml --judge judges/openai-small.yaml \
  --port 5000 --label-field answer --prompt-field problem &
SERVER=$!
trap 'kill -TERM $SERVER; wait $SERVER' EXIT   # SIGTERM: in-flight requests finish, the cache closes
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
  --dynamic_filtering --dynamic_filtering_reward_range 0 1 \
  --save_path ./checkpoints/rubricate-grpo
