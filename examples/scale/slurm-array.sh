#!/usr/bin/env bash
# Without Redis: a Slurm job array, one task a shard (docs/scale.md).
#   sbatch --array=1-8 examples/scale/slurm-array.sh
# Slurm gives each task SLURM_ARRAY_TASK_ID (from the --array range, 0- or 1-based as you wrote it),
# SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT; --shard takes i/n with 1 <= i <= n.
# Afterwards: rubricate merge parts/part*.jsonl -o all.jsonl
#SBATCH --job-name=rubricate
#SBATCH --cpus-per-task=2
#SBATCH --time=12:00:00
set -euo pipefail
i=$(( ${SLURM_ARRAY_TASK_ID:?run me with sbatch --array=1-N} - ${SLURM_ARRAY_TASK_MIN:-1} + 1 ))
n="${SLURM_ARRAY_TASK_COUNT:?run me with sbatch --array=1-N}"
mkdir -p parts
npx rubricate score rubric.yaml samples.jsonl --shard "$i/$n" -o "parts/part$i.jsonl" --cache "parts/cache$i.db"
