#!/usr/bin/env bash
# A client generated from our OpenAPI schema works: openapi-python-client (from PyPI, in a
# throwaway virtualenv, so its own dependencies stay out of ours) generates it, every generated
# module imports, and it gets a token from a running server and reads a list with it. Touches
# only 127.0.0.1 and a temporary directory; exits non-zero when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=.venv/bin/python
WORK="$(mktemp -d)"
SERVER=""
cleanup() {
    if [ -n "$SERVER" ]; then
        kill "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

export DATABASE_URL="sqlite:///${WORK}/db.sqlite3"
export DJANGO_DEBUG=0
export DJANGO_SECRET_KEY="openapi-client-only-not-a-secret"
export DJANGO_ALLOWED_HOSTS=127.0.0.1
USERNAME=client-check
PASSWORD=client-check-password

echo "--- openapi-python-client: generate a client from our schema"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client>=0.29,<0.30"
"$PYTHON" manage.py spectacular --file "$WORK/schema.yaml"
# The generator formats with ruff, which its virtualenv holds; any warning (an operation or a
# model it had to leave out) fails the step.
(cd "$WORK" && PATH="$WORK/venv/bin:$PATH" openapi-python-client generate \
    --path schema.yaml --meta none --output-path client --fail-on-warning)

echo "--- API server with the demo conference"
"$PYTHON" manage.py migrate --no-input -v 0
"$PYTHON" manage.py load_demo >/dev/null
"$PYTHON" manage.py shell --no-imports -c "
from django.contrib.auth import get_user_model
get_user_model().objects.create_user('${USERNAME}', password='${PASSWORD}')
"
PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
BASE="http://127.0.0.1:${PORT}"
.venv/bin/gunicorn conference.site.wsgi --bind "127.0.0.1:${PORT}" --workers 1 \
    >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 50); do
    if "$PYTHON" -c "import urllib.request; urllib.request.urlopen('${BASE}/api/schema/')" 2>/dev/null; then
        break
    fi
    kill -0 "$SERVER" 2>/dev/null || { echo "the server did not start:"; cat "$WORK/server.log"; exit 1; }
    sleep 0.2
done

echo "--- the generated client: import every module, get a token, read a list"
cat >"$WORK/check_client.py" <<'PYTHON'
import importlib
import pkgutil
import sys

import client as package

base, username, password = sys.argv[1:]
modules = [package.__name__] + [
    info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
]
for name in modules:
    importlib.import_module(name)
print(f"imported {len(modules)} modules")

from client import AuthenticatedClient, Client  # noqa: E402
from client.api.auth import auth_token_create  # noqa: E402
from client.api.conferences import conferences_list  # noqa: E402
from client.models import AuthTokenRequest, IssuedToken, PaginatedConferenceList  # noqa: E402

issued = auth_token_create.sync_detailed(
    client=Client(base_url=base), body=AuthTokenRequest(username=username, password=password)
)
assert isinstance(issued.parsed, IssuedToken), (issued.status_code, issued.content)
client = AuthenticatedClient(base_url=base, token=issued.parsed.token, prefix="Token")
listed = conferences_list.sync_detailed(client=client)
assert isinstance(listed.parsed, PaginatedConferenceList), (listed.status_code, listed.content)
slugs = [conference.slug for conference in listed.parsed.results]
assert "pytorch-eu-2026" in slugs, slugs
print(f"token obtained; conferences listed: {', '.join(slugs)}")
PYTHON
if ! (cd "$WORK" && "$WORK/venv/bin/python" check_client.py "$BASE" "$USERNAME" "$PASSWORD"); then
    echo "--- server log"
    tail -n 100 "$WORK/server.log"
    exit 1
fi
