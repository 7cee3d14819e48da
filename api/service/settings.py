"""Service settings: command-line values over ``TABLEREF_*`` environment variables over defaults.

The operator token is read from ``TABLEREF_OPERATOR_TOKEN`` (never written in code or on the command
line, where other users of the machine could read it from the process list).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

ENV_PREFIX = "TABLEREF_"


class ServiceSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    db: Path = Path("tableref.db")
    operator_token: str | None = Field(None, repr=False)
    client_queue: int = Field(2000, ge=10, description="messages a client may fall behind before it is dropped")
    max_clients: int = Field(500, ge=1, description="stream connections (SSE and WebSocket together) at once")
    send_timeout: float = Field(
        10.0, gt=0, le=3600, description="seconds one write to a stream client may wait before it is dropped"
    )
    sse_keepalive: float = Field(15.0, gt=0, le=3600, description="seconds of quiet before an SSE comment line")
    max_body: int = Field(65536, ge=1024, description="bytes a request body may hold (over: 413)")
    player_a: str = "A"
    player_b: str = "B"
    data_dir: Path | None = None  # clips and pictures; default: beside the database

    @property
    def players(self) -> dict[str, str]:
        return {"A": self.player_a, "B": self.player_b}

    @property
    def cache_dir(self) -> Path:
        return self.data_dir or self.db.parent / (self.db.stem + "-files")

    @classmethod
    def load(cls, overrides: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> ServiceSettings:
        """Defaults, then ``TABLEREF_<NAME>`` variables, then ``overrides`` that are not None."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for name in cls.model_fields:
            key = ENV_PREFIX + name.upper()
            if key in env and env[key] != "":
                values[name] = env[key]
        for name, value in (overrides or {}).items():
            if value is not None and name != "operator_token":
                values[name] = value
        return cls.model_validate(values)
