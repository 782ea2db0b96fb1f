"""Runs scim2-tester's checks against a live Kenning SCIM endpoint.

Usage: check.py BASE_URL TOKEN

Prints one line a check (status, title, resource type, reason), then a
summary line "N passed, N failed, N skipped". A check passes when the
server's behaviour conforms (SUCCESS, COMPLIANT, ACCEPTABLE), fails on a
DEVIATION, an ERROR or a CRITICAL finding, and is counted apart when the
tester skipped it (a feature the ServiceProviderConfig does not
advertise, or a check whose prerequisite failed). The exit status is 1
when any check failed.
"""

import sys

import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

PASSING = {Status.SUCCESS, Status.COMPLIANT, Status.ACCEPTABLE}


def main() -> int:
    base, token = sys.argv[1], sys.argv[2]
    http = httpx2.Client(
        base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    results = check_server(SyncSCIMClient(http))
    counts = {"ok": 0, "FAIL": 0, "skip": 0}
    for result in results:
        if result.status in PASSING:
            verdict = "ok"
        elif result.status == Status.SKIPPED:
            verdict = "skip"
        else:
            verdict = "FAIL"
        counts[verdict] += 1
        reason = (result.reason or "").replace("\n", " ")
        print(
            f"{verdict:<4} {result.status.name:<10} "
            f"{result.title} [{result.resource_type or '-'}] {reason}"
        )
    failed = counts["FAIL"]
    print(f"scim-conformance: {counts['ok']} passed, {failed} failed, {counts['skip']} skipped")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
