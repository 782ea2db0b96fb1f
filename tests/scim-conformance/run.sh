#!/usr/bin/env bash
# Starts the release binary on a fresh SQLite database in a temporary
# folder, issues a token with the users scopes, and runs scim2-tester
# (check.py) against its SCIM endpoint. Usage: run.sh PYTHON
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../support/fresh-server.sh
. "$here/../support/fresh-server.sh"
fresh_database "$1" "$here/../../target/release/kenning"
token="$("$kenning" token create --name scim-conformance --scope users:read --scope users:write --database-url "$db" 2>/dev/null)"
start_server RUST_LOG=warn
"$python" "$here/check.py" "$base/accounts/api/v1/scim/v2" "$token"
