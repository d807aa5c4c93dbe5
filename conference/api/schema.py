"""The API's OpenAPI documentation: error answers, parameters and schema hooks shared by every app."""

import copy

from drf_spectacular.authentication import TokenScheme
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
)
from rest_framework import permissions

from conference.api.policies import TeamPermission
from conference.api.serializers import (
    ErrorSerializer,
    PreconditionFailedSerializer,
    ValidationErrorSerializer,
)

# The conference the examples name: the demo's.
DEMO_CONFERENCE = "pytorch-eu-2026"


class ApiSchema(AutoSchema):
    """Marks reads as open to anonymous clients where the default permission class allows it."""

    def get_auth(self):
        if not self.view.get_authenticators():
            # A door that authenticates nobody (auth/token/) lists no security at all: "[{}]"
            # would make generated clients (openapi-python-client) ask for a token to get one.
            return []
        auths = super().get_auth()
        open_reads = getattr(self.view, "read_permission", None) is None and any(
            isinstance(permission, TeamPermission) for permission in self.view.get_permissions()
        )
        if open_reads and self.method in permissions.SAFE_METHODS and {} not in auths:
            auths.append({})
        return auths


class ValidationErrorSchema(OpenApiSerializerExtension):
    target_class = ValidationErrorSerializer

    def map_serializer(self, auto_schema, direction):
        return {
            "type": "object",
            "description": (
                "Each key names a field of the request (body or query string) and lists what is "
                "wrong with it; `non_field_errors` holds rules that span fields. A request body "
                "that is not valid JSON gets `detail` instead."
            ),
            "additionalProperties": {
                "oneOf": [
                    {"type": "array", "items": {"type": "string"}},
                    {"type": "string"},
                ]
            },
        }


class ScopedTokenScheme(TokenScheme):
    """``Authorization: Token <key>``, described with what limits a token may carry."""

    target_class = "conference.api.tokens.ScopedTokenAuthentication"
    priority = 1

    def get_security_definition(self, auto_schema):
        return {
            **super().get_security_definition(auto_schema),
            "description": (
                "`Authorization: Token <key>`, a key from POST /api/v1/auth/token/ (a username "
                "and password), from `manage.py create_api_token` or from the admin, shown once. "
                "A token does what its account may, never more, within its own limits: read "
                "only (any write answers 403), some conferences only (others answer 404), an "
                "expiry (then every request answers 401 `Token has expired.`); a revoked token "
                "answers 401 `Token has been revoked.`"
            ),
        }


ERRORS = {
    400: (
        ValidationErrorSerializer,
        "The request was not valid; each field names its problems.",
        {"starts_at": ["A session must end after it starts."]},
    ),
    401: (
        ErrorSerializer,
        "Missing or invalid credentials (send `Authorization: Token <key>`).",
        {"detail": "Authentication credentials were not provided."},
    ),
    403: (
        ErrorSerializer,
        "Authenticated, but not allowed: writes need staff status or the model's permission.",
        {"detail": "You do not have permission to perform this action."},
    ),
    404: (
        ErrorSerializer,
        "No such object, or not visible to you (unpublished conferences and draft sessions).",
        {"detail": "No Conference matches the given query."},
    ),
    409: (
        ErrorSerializer,
        "The object is still in use, or another request changed the same data at the same time.",
        {"detail": "Master Stage still hosts sessions; move or delete them first."},
    ),
    412: (
        PreconditionFailedSerializer,
        "The `If-Match` header names a version that is no longer the current one: someone "
        "changed the object since you read it. Nothing was changed; read it again.",
        {
            "detail": (
                'This session changed after the version your If-Match names; it is now at ETag "5". '
                "Read it again (GET), apply your change to what it is now, and send its new ETag "
                "in If-Match."
            ),
            "etag": '"5"',
        },
    ),
    429: (
        ErrorSerializer,
        "Too many requests; the `Retry-After` header says how many seconds to wait.",
        {"detail": "Request was throttled. Expected available in 12 seconds."},
    ),
}


def errors(*codes: int, invalid: dict | None = None) -> dict[int, OpenApiResponse]:
    """Documented error responses, each with its schema and an example (``invalid`` for the 400)."""
    responses = {}
    for code in codes:
        serializer, description, example = ERRORS[code]
        if code == 400 and invalid is not None:
            example = invalid
        responses[code] = OpenApiResponse(
            response=serializer,
            description=description,
            examples=[OpenApiExample(f"HTTP {code}", value=example, status_codes=[code])],
        )
    return responses


READ = (401, 429)
READ_ONE = (401, 404, 429)
LIST = (400, 401, 429)  # 400: paging parameters that are not numbers
LIST_IN_CONFERENCE = (400, 401, 404, 429)
PAGING_ERROR = ["Enter a whole number of at least 0 and at most 1000000000."]
WRITE = (400, 401, 403, 404, 409, 429)
CHANGE = (400, 401, 403, 404, 409, 412, 429)  # PUT and PATCH of a versioned object
DELETE = (401, 403, 404, 409, 412, 429)

IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description=(
        'The `ETag` of the version your change is based on, as a GET returned it (`"5"`). '
        "If the object has changed since, the request is refused with 412 and nothing is "
        "changed. Without it the request goes ahead (409 if another write lands during it)."
    ),
)
ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[200],
    required=True,
    description=(
        'Strong ETag: the object\'s version, then a digest of this answer (`"5.3f2a…"`). It '
        "changes with every write of the object and whenever the answer would. Send it back in "
        "`If-Match` to change the object only if nobody else has (only the version before the "
        "dot counts there), or in `If-None-Match` to get a 304 while the answer is unchanged."
    ),
)
READ_ETAG = {
    "description": "Strong ETag of this answer (a digest of its body); send it in "
    "`If-None-Match` to get a 304 while the answer is unchanged.",
    "required": True,
    "schema": {"type": "string"},
}
NOT_MODIFIED = {
    "description": "Not Modified, with no body: the request's `If-None-Match` header named the "
    "ETag this answer still has."
}


def document_conditional_reads(result, generator, request, public):
    """drf-spectacular hook: every read carries an ETag and may answer 304 (ConditionalReadMixin
    serves all of them). If-None-Match is not listed as a parameter: a client that sends none
    never gets a 304, and a fuzzer given the parameter would send `*` and expect a 200."""
    for path, operations in result["paths"].items():
        read = operations.get("get")
        if read is None or not path.startswith("/api/v1/"):
            continue
        read["responses"]["304"] = copy.deepcopy(NOT_MODIFIED)
        headers = read["responses"]["200"].setdefault("headers", {})
        headers.setdefault("ETag", copy.deepcopy(READ_ETAG))
    return result


# RefuseUnstorableTextMiddleware (conference.views.errors) answers any request carrying NUL with a
# 400, before authentication or validation: the strings a client sends say so. An ECMA-262 pattern.
NO_NUL_PATTERN = "^[^\\u0000]*$"


def document_refused_nul(result, generator, request, public):
    """drf-spectacular hook: every string a client sends (a parameter, a field of a request body)
    has a pattern without NUL, unless a pattern or a list of values already limits it."""

    def mark(schema):
        if not isinstance(schema, dict):
            return
        if (
            schema.get("type") == "string"
            and "pattern" not in schema
            and "enum" not in schema
            and schema.get("format") != "binary"
        ):
            schema["pattern"] = NO_NUL_PATTERN
        for key in ("items", "additionalProperties"):
            mark(schema.get(key))
        for sub in schema.get("properties", {}).values():
            mark(sub)
        for key in ("oneOf", "anyOf", "allOf"):
            for sub in schema.get(key, ()):
                mark(sub)

    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):  # COMPONENT_SPLIT_REQUEST: what clients send
            mark(component)
    for operations in result["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", ()):
                mark(parameter.get("schema"))
            for media in operation.get("requestBody", {}).get("content", {}).values():
                mark(media.get("schema"))
    return result


SLUG_SCHEMA = {"type": "string", "pattern": r"^[-a-zA-Z0-9_]+$"}


def path_slug(name: str, description: str, example: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        SLUG_SCHEMA,
        OpenApiParameter.PATH,
        description=description,
        examples=[OpenApiExample("From the demo conference", value=example)],
    )


CONFERENCE_SLUG = path_slug(
    "conference_slug", "Slug of the conference, as in its page's URL.", DEMO_CONFERENCE
)
