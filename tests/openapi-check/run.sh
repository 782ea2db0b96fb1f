#!/usr/bin/env bash
# Starts the kenning binary given on a fresh SQLite database in a temporary
# folder with one user (ada@example.com) and an API key, and runs
# schemathesis (from the environment of PYTHON) against the connector API
# with the OpenAPI document the server publishes: every operation, with
# the document's examples, its boundaries and generated bodies. It fails
# on any 5xx, and on any answer whose status, content type, headers or
# body the document does not allow. Usage: run.sh PYTHON KENNING
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../support/fresh-server.sh
. "$here/../support/fresh-server.sh"
fresh_database "$1" "$2"
bin="$(dirname "$python")"
token="$("$kenning" token create --name openapi-check --scope users:write --database-url "$db" 2>/dev/null)"
key="$("$kenning" apikey create --name openapi-check --database-url "$db" 2>/dev/null)"
# No rate limit: the check sends as fast as it can.
start_server RUST_LOG=error KENNING_REQUESTS_PER_MINUTE=0
"$python" - "$base" "$token" <<'PY'
import json, sys, urllib.request
base, token = sys.argv[1], sys.argv[2]
query = 'mutation { createUser(createUserInput: {email: "ada@example.com", firstname: "Ada", lastname: "Lovelace"}) { globalUserId } }'
request = urllib.request.Request(
    base + "/accounts/api/v1/graphql",
    data=json.dumps({"query": query}).encode(),
    headers={"Content-Type": "application/json", "Authorization": "Bearer " + token},
)
answer = json.load(urllib.request.urlopen(request))
assert answer.get("data", {}).get("createUser"), answer
PY
cd "$work"
status=0
"$bin/schemathesis" --config-file "$here/schemathesis.toml" run "$base/connectors/api/v1/openapi.json" \
  --header "APIKEY: $key" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --phases examples,coverage,fuzzing \
  --max-examples "${OPENAPI_CHECK_EXAMPLES:-100}" \
  --seed 1 \
  || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- the server's log:"
  cat "$work/stderr"
fi
exit "$status"
