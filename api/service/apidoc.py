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
