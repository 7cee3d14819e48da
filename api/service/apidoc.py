"""A self-contained HTML page of the app's OpenAPI description (FastAPI's own /docs loads its scripts from a
CDN, which a club's offline machine cannot reach)."""

from __future__ import annotations

import html
import json
from typing import Any


def openapi_html(spec: dict[str, Any]) -> str:
    e = html.escape
    info = spec.get("info", {})
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{e(info.get('title', 'API'))} API</title><link rel='stylesheet' href='/static/review.css'>",
        "<style>main{display:block;max-width:960px}section{background:#fff;border:1px solid #ddd;padding:8px 14px;"
        "margin:10px 0}code.m{font-weight:bold;margin-right:8px}pre{white-space:pre-wrap}</style></head><body>",
        f"<header><h1>{e(info.get('title', ''))} {e(info.get('version', ''))} · API</h1>",
        "<nav><a href='/openapi.json'>openapi.json</a> · <a href='/review'>review</a></nav></header><main>",
        f"<pre>{e(info.get('description', '').strip())}</pre>",
    ]
    for path, ops in spec.get("paths", {}).items():
        for method, op in ops.items():
            parts.append(f"<section id='{e(method + path)}'><h3><code class='m'>{e(method.upper())}</code>"
                         f"<code>{e(path)}</code> · {e(op.get('summary', ''))}</h3>")  # fmt: skip
            if op.get("description"):
                parts.append(f"<p>{e(op['description'])}</p>")
            params = op.get("parameters", [])
            if params:
                parts.append("<table><tr><th>parameter</th><th>in</th><th>schema</th><th>about</th></tr>")
                for p in params:
                    schema = json.dumps(p.get("schema", {}))
                    parts.append(f"<tr><td>{e(p['name'])}</td><td>{e(p.get('in', ''))}</td><td><code>{e(schema)}"
                                 f"</code></td><td>{e(p.get('description', ''))}</td></tr>")  # fmt: skip
                parts.append("</table>")
            codes = ", ".join(f"{c} {r.get('description', '')}" for c, r in op.get("responses", {}).items())
            parts.append(f"<p class='muted'>responses: {e(codes)}</p></section>")
    parts.append("</main></body></html>")
    return "".join(parts)


def input_record_schema() -> dict[str, Any]:
    """The JSON schema of POST /inputs' body: one operator input record (CONTRACT.md section 3), one
    alternative per type with the fields that type needs. The route itself reads the raw body (so that a
    malformed one gets the contract's one-line reason), which is why the schema is given here by hand."""
    from calibration.contract import GAMES, MANUAL_FOUL_CODES, POCKETS

    ball = {"type": "string", "pattern": r"^(cue|[1-9]|1[0-5]|t[1-9][0-9]*)$", "description": "a ball id"}
    common: dict[str, Any] = {
        "t": {"type": ["number", "null"], "minimum": 0, "description": "seconds since the source started"},
        "frame": {"type": ["integer", "null"], "minimum": 0, "maximum": 2**53 - 1},
        "shot": {"type": ["integer", "null"], "minimum": 0, "maximum": 2**53 - 1,
                 "description": "the shot it applies to (at most the next one); default: in progress or next"},
    }  # fmt: skip
    player = {"type": "string", "enum": ["A", "B"]}
    pocket = {"type": "string", "enum": list(POCKETS)}
    payloads: dict[str, tuple[dict[str, Any], list[str]]] = {
        "frame_start": ({"game": {"type": "string", "enum": list(GAMES)}, "breaker": player}, ["game", "breaker"]),
        "call": ({"ball": ball, "pocket": pocket, "cue_pocket": pocket}, []),
        "call_any": ({}, []),
        "reorder": ({"ball": ball}, ["ball"]),
        "third_ball": ({"balls": {"type": "array", "items": ball, "minItems": 1, "maxItems": 15}}, ["balls"]),
        "manual_foul": ({"code": {"type": "string", "enum": list(MANUAL_FOUL_CODES)}}, ["code"]),
        "play_on": ({"player": player}, ["player"]),
        "rerack": ({}, []),
        "concede": ({"player": player}, ["player"]),
        "placement_warning": ({}, []),
        "rename": ({"ball": ball, "to": ball}, ["ball", "to"]),
        "void_pot": ({"ball": ball}, ["ball"]),
    }
    variants = []
    for kind, (fields, required) in payloads.items():
        props = {"type": {"type": "string", "enum": [kind]}, **common, **fields}
        variants.append({"type": "object", "title": kind, "properties": props, "required": ["type", *required],
                         "additionalProperties": False})  # fmt: skip
    return {"oneOf": variants, "description": "one operator input record (CONTRACT.md section 3)"}
