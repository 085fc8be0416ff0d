"""OpenRLHF against a live `rubricate serve`: python3 openrlhf_contract.py <url> < requests.json

requests.json: [{"name", "query", "prompts", "labels"}...]. Each is posted as OpenRLHF posts it;
a 200 must pass `check_openrlhf` (extra_logs keys compared with the first 200 of the run, as
OpenRLHF reads them from the first response); a 5xx must carry Retry-After and a JSON error
(OpenRLHF retries 5xx, 1 s apart, then stops the run). Prints {name: {status, ...}} as JSON;
exits 1 on a contract violation."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contract import ContractError, check_openrlhf, post  # noqa: E402

url = sys.argv[1]
out = {}
first_keys = None
try:
    for req in json.load(sys.stdin):
        body = {"query": req["query"], "prompts": req.get("prompts"), "labels": req.get("labels")}
        status, reason, headers, answer = post(url, body)
        if status == 200:
            check_openrlhf(answer, len(req["query"]), first_keys)
            if first_keys is None:
                first_keys = list(answer["extra_logs"])
            out[req["name"]] = {"status": 200, "rewards": answer["rewards"], "extra_logs": answer["extra_logs"], "errors": answer["errors"]}
        else:
            retry_after = {k.lower(): v for k, v in headers.items()}.get("retry-after")
            if status >= 500 and (retry_after is None or not retry_after.isdigit()):
                raise ContractError("%s: a %d without a Retry-After in seconds" % (req["name"], status))
            if not (isinstance(answer, dict) and isinstance(answer.get("error"), dict)):
                raise ContractError("%s: a %d without a JSON error" % (req["name"], status))
            out[req["name"]] = {"status": status, "reason": reason, "retry_after": retry_after, "error": answer["error"]}
except ContractError as e:
    print(json.dumps({"violation": str(e)}))
    sys.exit(1)
print(json.dumps(out))
