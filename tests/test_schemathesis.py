"""Fuzz the OpenAPI surface of a real ``jiyi serve`` with schemathesis: never a 5xx, every error
a JSON ``{"error": {"code", "message"}}``. Valid and invalid inputs; bounded: at most 8 examples
per operation and mode, ~100 in all (override with JIYI_FUZZ_EXAMPLES)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode

from jiyi.service.spawn import running_server

TOKEN = "fuzz-token-9876543210"
NO_INPUT = {"GET /metrics", "GET /healthz", "GET /openapi.json", "GET /inspector/api/users",
            "GET /inspector/api/units/{unit_id}"}  # nothing can be invalid: no body, one path string
EXAMPLES = int(os.environ.get("JIYI_FUZZ_EXAMPLES", "8"))


def fuzz_operation(op: Any, mode: GenerationMode, url: str, auth: dict[str, str],
                   seen: dict[str, int]) -> None:
    @given(case=op.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def fuzz(case: Any) -> None:
        response = case.call(base_url=url, headers=auth, timeout=30)
        status = response.status_code
        key = f"{op.label} {mode.value}"
        seen[key] = seen.get(key, 0) + 1
        assert status < 500, f"{case.method} {case.formatted_path}: {status} {response.text[:500]}"
        if status >= 400:
            body = response.json()
            assert set(body) == {"error"}, body
            assert {"code", "message"} <= set(body["error"])
        assert "Traceback" not in response.text

    fuzz()


def test_openapi_fuzz_no_server_errors(tmp_path: Path) -> None:
    env = {"JIYI_EMBEDDER": "fake", "JIYI_TOKEN": TOKEN}
    auth = {"authorization": f"Bearer {TOKEN}"}
    with running_server(str(tmp_path / "m.db"), env=env) as srv:
        doc = httpx.get(srv.url + "/openapi.json", headers=auth, timeout=30).json()
        schema = schemathesis.openapi.from_dict(doc)
        seen: dict[str, int] = {}
        operations = [cast(Any, result).ok() for result in schema.get_all_operations()]
        assert len(operations) >= 7

        for op in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                try:
                    fuzz_operation(op, mode, srv.url, auth, seen)
                except Unsatisfiable:  # no parameters and no body: nothing invalid to make
                    assert mode is GenerationMode.NEGATIVE and op.label in NO_INPUT
        for label in ("POST /v1/turns", "GET /v1/recall", "POST /v1/feedback",
                      "POST /v1/prompt", "GET /memory/health"):
            assert seen.get(f"{label} positive") and seen.get(f"{label} negative"), seen
        assert "Traceback" not in srv.log()
