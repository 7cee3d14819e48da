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


def test_plausible_operator_input_sequences_never_answer_5xx(tmp_path):
    """The referee's side of POST /inputs: sequences of well-formed inputs of every type, naming balls on
    the table or just off it and shots up to the next, in any order; each answer below 500 and the pages
    that read the match (state, shots, protocol) still readable after each."""
    from calibration.contract import GAMES, MANUAL_FOUL_CODES, POCKETS

    with running_service(tmp_path) as (svc, base):
        svc.runner.start()
        assert svc.runner.join(30) and svc.runner.stats.error is None
        on_table = sorted(b["id"] for b in httpx.get(base + "/state").json()["balls"])
        ball = st.sampled_from([*on_table, "3", "t1", "t99"])
        player = st.sampled_from(["A", "B"])
        pocket = st.sampled_from(list(POCKETS))
        record = st.one_of(
            st.fixed_dictionaries({"type": st.just("call"), "ball": ball, "pocket": pocket}),
            st.fixed_dictionaries({"type": st.just("call"), "cue_pocket": pocket}),
            st.fixed_dictionaries({"type": st.just("call_any")}),
            st.fixed_dictionaries({"type": st.just("reorder"), "ball": ball}),
            st.fixed_dictionaries({"type": st.just("third_ball"), "balls": st.lists(ball, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"type": st.just("manual_foul"), "code": st.sampled_from(MANUAL_FOUL_CODES)}),
            st.fixed_dictionaries({"type": st.just("play_on"), "player": player}),
            st.fixed_dictionaries({"type": st.just("concede"), "player": player}),
            st.fixed_dictionaries({"type": st.sampled_from(["rerack", "placement_warning"])}),
            st.fixed_dictionaries({"type": st.just("frame_start"), "game": st.sampled_from(GAMES), "breaker": player}),
            st.fixed_dictionaries({"type": st.just("rename"), "ball": ball, "to": ball}),
            st.fixed_dictionaries({"type": st.just("void_pot"), "ball": ball}),
        )
        with_shot = st.tuples(record, st.one_of(st.none(), st.integers(0, 6))).map(
            lambda rs: rs[0] if rs[1] is None else {**rs[0], "shot": rs[1]}
        )
        statuses: Counter[int] = Counter()
        failures: list[str] = []

        @settings(max_examples=40, deadline=None, database=None, derandomize=True,
                  phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
        @given(seq=st.lists(with_shot, min_size=1, max_size=4))
        def probe(seq: list[dict]) -> None:
            for body in seq:
                r = httpx.post(base + "/inputs", json=body, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
                statuses[r.status_code] += 1
                if r.status_code >= 500:
                    failures.append(f"{r.status_code} for {body}: {r.text[:200]}")
            for page in ("/state", "/shots", "/protocol"):
                r = httpx.get(base + page, timeout=30)
                if r.status_code != 200:
                    failures.append(f"{page} answered {r.status_code} after {seq}: {r.text[:200]}")

        probe()
        print(f"operator input sequences: statuses {dict(sorted(statuses.items()))}")
        assert statuses[201] > 10 and statuses[409] > 10, "both taken and refused inputs were tried"
        assert not failures, "\n".join(failures[:20])
