"""No route answers 5xx, whatever it is sent: schemathesis generates requests from the service's own OpenAPI
schema (valid ones, and ones that break the schema on purpose) and sends them to a real uvicorn server on
127.0.0.1 holding a played match, with and without the operator token. Every answer must be below 500, and
a 4xx must carry a one-line ``detail``.

The examples are derandomized (the same requests on every run) and bounded per operation, so the run takes
about a minute on a 2-core machine.
"""

from __future__ import annotations

import json
from collections import Counter

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests.service_support import TOKEN, running_service

EXAMPLES = 100  # per operation and generation mode (a route without parameters has only a few distinct ones)

pytestmark = pytest.mark.slow


def _send(case: schemathesis.Case, base: str, token: bool) -> tuple[int, str, str]:
    """(status, content type, body text) of the request the case describes; a stream is read only up to
    its first chunk (it would go on for as long as the match)."""
    kw = case.as_transport_kwargs(base_url=base)
    headers = dict(kw.pop("headers", None) or {})
    if token:
        headers["Authorization"] = f"Bearer {TOKEN}"
    with requests.request(**kw, headers=headers, stream=True, timeout=30) as resp:
        ctype = resp.headers.get("content-type", "")
        if ctype.startswith("text/event-stream"):
            body = next(resp.iter_content(256), b"").decode(errors="replace")
        else:
            body = resp.content.decode(errors="replace")
    return resp.status_code, ctype, body


def test_no_route_answers_5xx_to_generated_requests(tmp_path):
    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30) and svc.runner.stats.error is None
        spec = httpx.get(base + "/openapi.json").json()
        schema = schemathesis.openapi.from_dict(spec)
        statuses: Counter[int] = Counter()
        per_operation: Counter[str] = Counter()
        failures: list[str] = []
        operations = [r.ok() for r in schema.get_all_operations()]
        assert len(operations) >= 12, "every route of the service is in its schema"

        def probe_operation(op: schemathesis.APIOperation, mode: GenerationMode) -> None:
            @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                      phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
            @given(case=op.as_strategy(generation_mode=mode), token=st.booleans())
            def probe(case: schemathesis.Case, token: bool) -> None:
                status, ctype, body = _send(case, base, token)
                statuses[status] += 1
                per_operation[op.label] += 1
                where = f"{op.method.upper()} {op.path} {case.path_parameters} {case.query} {str(case.body)[:80]}"
                if status >= 500:
                    failures.append(f"{status} from {where}: {body[:200]}")
                elif 400 <= status < 500 and ctype.startswith("application/json"):
                    detail = json.loads(body).get("detail")
                    if not isinstance(detail, str) or "\n" in detail:
                        failures.append(f"{status} without a one-line detail from {where}: {body[:200]}")

            try:
                probe()
            except Unsatisfiable:
                # No request can break a schema that has nothing to break (a route without parameters).
                assert mode is GenerationMode.NEGATIVE, f"{op.path}: no valid request could be generated"

        for op in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                probe_operation(op, mode)
        total = sum(statuses.values())
        shown = dict(sorted(statuses.items()))
        print(f"schemathesis: {total} requests over {len(operations)} operations; statuses {shown}")
        assert all(per_operation[op.label] >= 2 for op in operations), "each operation was probed"
        assert per_operation["POST /inputs"] >= EXAMPLES, "the operator's route was probed in depth"
        assert statuses[201] > 0 and statuses[422] > 0, "valid inputs were taken and invalid ones refused"
        assert not failures, "\n".join(failures[:20])
