#!/usr/bin/env bash
# Starts the release binary on a fresh SQLite database in a temporary
# folder, issues a token with the users scopes, and runs scim2-tester
# (check.py) against its SCIM endpoint. Usage: run.sh PYTHON
set -euo pipefail
python="$1"
here="$(cd "$(dirname "$0")" && pwd)"
kenning="$here/../../target/release/kenning"
work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
db="sqlite://$work/kenning.db"
port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$kenning" migrate --database-url "$db" 2>/dev/null
token="$("$kenning" token create --name scim-conformance --scope users:read --scope users:write --database-url "$db" 2>/dev/null)"
RUST_LOG=warn "$kenning" serve --database-url "$db" --bind "127.0.0.1:$port" >"$work/stdout" 2>"$work/stderr" &
server=$!
for _ in $(seq 100); do
  if "$python" -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$port/readyz')" 2>/dev/null; then break; fi
  sleep 0.1
done
"$python" "$here/check.py" "http://127.0.0.1:$port/accounts/api/v1/scim/v2" "$token"
