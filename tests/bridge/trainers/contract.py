"""What each trainer does with our answers, written from the trainers' own source (see
/work/notes/h17/contracts.md, mirrored in examples/trainers/README.md). Stdlib only: torch's
dtype inference is modelled by `tensor_dtype`, which is all the contracts need."""
import json
import math
import urllib.error
import urllib.request


class ContractError(AssertionError):
    pass


def tensor_dtype(values):
    """The dtype `torch.as_tensor(values)` / `torch.tensor(values)` infers from a JSON-decoded list:
    None anywhere -> "Could not infer dtype of NoneType"; any float -> float32; all bool -> bool;
    else int64. Nested lists are flattened (OpenRLHF >= 0.10 wraps each list once more)."""
    flat = []
    stack = [values]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        else:
            flat.append(v)
    if any(v is None for v in flat):
        raise ContractError("Could not infer dtype of NoneType")
    if any(isinstance(v, float) for v in flat):
        return "float32"
    if flat and all(isinstance(v, bool) for v in flat):
        return "bool"
    return "int64"


def std_ok(values):
    """OpenRLHF's group_norm calls rewards.std(): 'std and var only support floating point'."""
    if tensor_dtype(values) != "float32":
        raise ContractError("std and var only support floating point and complex dtypes (got %s)" % tensor_dtype(values))


def post(url, body, path="/get_reward"):
    """OpenRLHF's request: JSON body, Content-Type application/json, no Authorization. Returns
    (status, reason, headers, decoded body)."""
    data = json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=180) as response:
            return response.status, response.reason, dict(response.headers), json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        text = e.read().decode("utf-8")
        return e.code, e.reason, dict(e.headers), json.loads(text) if text else None


def check_openrlhf(answer, n, first_keys=None):
    """The v0.9 whole-batch path (`update_samples_with_rewards`) and the current per-query path
    (`_process_response_into_experience`) both make tensors of rewards, scores and every
    extra_logs list, read extra_logs keys from the first response, and group_norm takes std()."""
    for key in ("rewards", "scores", "extra_logs"):
        if key not in answer:
            raise ContractError("missing %r" % key)
    for name, values in [("rewards", answer["rewards"]), ("scores", answer["scores"])] + [("extra_logs.%s" % k, v) for k, v in answer["extra_logs"].items()]:
        if len(values) != n:
            raise ContractError("%s has %d values for %d queries" % (name, len(values), n))
        for v in values:
            if v is None:
                raise ContractError("%s holds null: Could not infer dtype of NoneType" % name)
            if type(v) is not float:
                raise ContractError("%s holds %r, not a float: the tensor would be %s" % (name, v, tensor_dtype(values)))
            if math.isnan(v) or math.isinf(v):
                raise ContractError("%s holds %r" % (name, v))
        if n:
            tensor_dtype(values)
            tensor_dtype([values])  # current OpenRLHF: torch.tensor([reward_list])
    if n:
        std_ok(answer["rewards"])
    if first_keys is not None and sorted(answer["extra_logs"]) != sorted(first_keys):
        raise ContractError("extra_logs keys %s differ from the first response's %s (KeyError in OpenRLHF)" % (sorted(answer["extra_logs"]), sorted(first_keys)))
