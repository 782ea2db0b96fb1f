# Sourced by the checks that run an outside tool against a live server
# (tests/scim-conformance, tests/openapi-check).
#
# fresh_database PYTHON KENNING: a migrated SQLite database in a temporary
#   folder; sets `python`, `kenning` (both absolute), `work` and `db`, and
#   removes the folder (and stops the server) when the script exits.
# start_server [NAME=VALUE ...]: serves `db` on a free port with the given
#   settings in the environment, its output in `$work`; sets `server` and
#   `base`, and returns once /readyz answers.

absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

fresh_database() {
  python="$(absolute "$1")"
  kenning="$(absolute "$2")"
  work="$(mktemp -d)"
  server=""
  trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
  db="sqlite://$work/kenning.db"
  "$kenning" migrate --database-url "$db" 2>/dev/null
}

start_server() {
  local port
  port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  env "$@" "$kenning" serve --database-url "$db" --bind "127.0.0.1:$port" >"$work/stdout" 2>"$work/stderr" &
  server=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 100); do
    if "$python" -c "import urllib.request; urllib.request.urlopen('$base/readyz')" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "the server did not become ready; its log:" >&2
  cat "$work/stderr" >&2
  return 1
}
