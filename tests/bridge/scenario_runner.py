"""The loop both trainer drivers (drive_trainer_loops.py, drive_verifiers_v1.py) run their scenarios in.

A driver names its scenarios, says which loaded modules a scenario owns, and how to point itself at
a URL; this runs `<scenario>[:<FAIL>][=<url>]` specs in order, each against its own server (`=<url>`,
else the driver's starting URL), with the modules the previous scenario loaded dropped first, as a
fresh interpreter would start. A scenario that raises is reported and the next one runs. Each
scenario's stderr follows a `--- scenario <name>` line; stdout gets one JSON object, {spec name:
the scenario's output, or {"error": traceback}}.
"""
import json
import os
import sys
import traceback


def run_scenarios(specs, scenarios, out, base_url, set_url, loaded_by_a_scenario, reset=lambda: None):
    loaded = set(sys.modules)
    results = {}
    for spec in specs:
        name, _, url = spec.partition("=")
        scenario, _, fail = name.partition(":")
        set_url(url or base_url)
        os.environ["RUBRICATE_ENV_URL"] = url or base_url
        if fail:
            os.environ["FAIL"] = fail
        for module in [m for m in set(sys.modules) - loaded if loaded_by_a_scenario(sys.modules[m])]:
            del sys.modules[module]
        reset()
        out.clear()
        print(f"--- scenario {name}", file=sys.stderr, flush=True)
        try:
            scenarios[scenario]()
            results[name] = dict(out)
        except Exception:
            traceback.print_exc()
            results[name] = {"error": traceback.format_exc()}
        sys.stderr.flush()
    print(json.dumps(results))
