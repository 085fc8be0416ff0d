/**
 * The Python side of the REPL (stdlib only; Debian's python3). One JSON request a line on stdin
 * (`{"code": ...}`), one JSON answer a line on the real stdout (`{"stdout", "stderr", "error"}`);
 * what the code prints is captured, never mixed with the protocol. `llm_query(prompt)` asks the
 * host over the Unix socket named by RUBRICATE_HOST_SOCKET (network stays off); `rlm_query(prompt,
 * context)` asks for a sub-RLM with a REPL of its own. The variable
 * `context` holds the file named by RUBRICATE_CONTEXT_FILE, read once at start.
 */
export const PYTHON_REPL_DRIVER = String.raw`
import ast, io, json, os, socket, sys, traceback, contextlib

_proto_out = sys.stdout
_sock_path = os.environ.get("RUBRICATE_HOST_SOCKET")

def _ask_host(req):
    if not _sock_path:
        raise RuntimeError("llm_query is not available in this environment")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(_sock_path)
        s.sendall((json.dumps(req) + "\n").encode("utf-8"))
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    finally:
        s.close()
    answer = json.loads(buf.decode("utf-8") or "{}")
    if "error" in answer:
        raise RuntimeError(answer["error"])
    return answer.get("text", "")

def llm_query(prompt, model=None):
    """Asks a sub-model through the host; returns its text. Raises RuntimeError when the host refuses (budget, size)."""
    req = {"prompt": str(prompt)}
    if model is not None:
        req["model"] = str(model)
    return _ask_host(req)

def rlm_query(prompt, context):
    """Runs a sub-RLM: a sub-model with a REPL of its own whose variable "context" is the given text; returns its answer. Refused past the maximum depth."""
    return _ask_host({"prompt": str(prompt), "context": str(context)})

_ns = {"__name__": "__repl__", "llm_query": llm_query, "rlm_query": rlm_query}
_ctx_file = os.environ.get("RUBRICATE_CONTEXT_FILE")
if _ctx_file:
    with open(_ctx_file, "r", encoding="utf-8", errors="replace") as f:
        _ns["context"] = f.read()

def _run(code):
    """Runs a cell; like a notebook, the value of a final expression is printed."""
    out, err = io.StringIO(), io.StringIO()
    error = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            tree = ast.parse(code, "<repl>", "exec")
            last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            if last is not None:
                tree.body.pop()
            exec(compile(tree, "<repl>", "exec"), _ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<repl>", "eval"), _ns)
                if value is not None:
                    print(repr(value))
        except BaseException as e:
            if isinstance(e, SystemExit):
                error = "SystemExit is not allowed in the REPL"
            else:
                error = "".join(traceback.format_exception_only(type(e), e)).strip()
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "error": error}

_proto_out.write(json.dumps({"ready": True}) + "\n")
_proto_out.flush()
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        req = json.loads(line)
        answer = _run(req.get("code", ""))
    except Exception as e:
        answer = {"stdout": "", "stderr": "", "error": "bad request: %s" % e}
    _proto_out.write(json.dumps(answer) + "\n")
    _proto_out.flush()
`;
