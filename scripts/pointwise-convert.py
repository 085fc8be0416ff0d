#!/usr/bin/env python3
"""Converts SummHay's evaluation benchmark and XSTest v2's labelled completions to the JSONL of
datasets/summhay/ and datasets/xstest/ (sources, commits and licences in datasets/README.md).
Text unchanged; only the layout changes.

usage: python3 scripts/pointwise-convert.py summhay <eval_benchmark_data.json> datasets/summhay
       python3 scripts/pointwise-convert.py xstest <exaggerated-safety checkout> datasets/xstest
"""
import csv
import json
import os
import sys


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def summhay(src, out):
    # One line per annotated summary, every field as the source has it (human coverage in
    # `annotation`, each evaluator's in `predictions_<setup>_<model>`).
    with open(src, encoding="utf-8") as f:
        rows = json.load(f)
    os.makedirs(out, exist_ok=True)
    write_jsonl(os.path.join(out, "samples.jsonl"), rows)
    print(f"{len(rows)} summaries, {sum(len(r['annotation']) for r in rows)} summary x insight items")


def xstest(src, out):
    # One file per completion model: the human labels (annotation_1, annotation_2, agreement,
    # final_label) with the GPT-4 classifier's label and the string-match classifier's beside them.
    labels_dir = os.path.join(src, "evaluation", "automated_evaluation_labels")
    os.makedirs(out, exist_ok=True)
    total = 0
    for name in sorted(os.listdir(labels_dir)):
        if not name.endswith("_gpteval.csv"):
            continue
        model = name[len("xstest_v2_completions_"):-len("_gpteval.csv")]
        with open(os.path.join(labels_dir, name), newline="", encoding="utf-8") as f:
            gpt = list(csv.DictReader(f))
        with open(os.path.join(labels_dir, name.replace("_gpteval", "_streval")), newline="", encoding="utf-8") as f:
            strmatch = {r["id"]: r["strmatch_label"] for r in csv.DictReader(f)}
        rows = [{**r, "strmatch_label": strmatch[r["id"]]} for r in gpt]
        write_jsonl(os.path.join(out, f"completions-{model}.jsonl"), rows)
        total += len(rows)
    print(f"{total} completions")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("summhay", "xstest"):
        sys.exit(__doc__)
    {"summhay": summhay, "xstest": xstest}[sys.argv[1]](sys.argv[2], sys.argv[3])
