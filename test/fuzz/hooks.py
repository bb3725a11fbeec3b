"""schemathesis hooks for the API fuzzer (test/integration/api-fuzz.test.ts loads this file through
SCHEMATHESIS_HOOKS).

- `error_body`: svc's error contract (interface spec §7): every 4xx and 5xx answer of /api/v1 is JSON
  `{"error": "<non-empty message>"}`, whether or not the route's schema documents the status. Two documented
  exceptions (docs/compatibility.md): /auth/cli-login is a page for a person in a browser and answers HTML, and /mcp
  answers the protocol's JSON-RPC 2.0 error object once the MCP SDK has the request.
- `before_call`: the stateful phase follows links from GET /auth/api-keys to DELETE /auth/api-keys/{id}, which
  would revoke the fuzzer's own keys and turn the rest of the run into 401s. Those ids (SVC_FUZZ_KEEP_KEY_IDS,
  comma-separated) are swapped for an unknown one; the route is still exercised, the answer is then 404.
"""
import json
import os

import schemathesis

HTML_PAGES = {"/api/v1/auth/cli-login"}
JSON_RPC = {"/api/v1/mcp"}


def _is_json_rpc_error(body):
    error = body.get("error")
    return body.get("jsonrpc") == "2.0" and isinstance(error, dict) and isinstance(error.get("message"), str)


@schemathesis.check
def error_body(ctx, response, case):
    """Fails when an error status comes without a JSON body whose `error` is a non-empty string."""
    if response.status_code < 400:
        return None
    path = case.operation.path
    content_type = (response.headers.get("content-type") or [""])[0]  # lowercase keys, list values
    if path in HTML_PAGES and content_type.startswith("text/html"):
        return None
    try:
        body = json.loads(response.content or b"")
    except ValueError as exc:
        raise AssertionError(f"{response.status_code} answer is not JSON: {response.content[:200]!r}") from exc
    if path in JSON_RPC and isinstance(body, dict) and _is_json_rpc_error(body):
        return None
    if not isinstance(body, dict) or not isinstance(body.get("error"), str) or not body["error"]:
        raise AssertionError(f'{response.status_code} answer lacks {{"error": string}}: {response.content[:200]!r}')
    return None


KEEP_KEY_IDS = {i for i in os.environ.get("SVC_FUZZ_KEEP_KEY_IDS", "").split(",") if i}
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


@schemathesis.hook
def before_call(ctx, case, kwargs):
    """Keeps the fuzzer's own API keys alive (see the module docstring)."""
    if case.method.upper() == "DELETE" and case.operation.path == "/api/v1/auth/api-keys/{id}":
        if case.path_parameters and case.path_parameters.get("id") in KEEP_KEY_IDS:
            case.path_parameters["id"] = UNKNOWN_ID
