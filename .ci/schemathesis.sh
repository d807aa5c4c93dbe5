#!/usr/bin/env bash
# Fuzz the REST API against its own OpenAPI schema with schemathesis: every operation, with a staff
# token so that writes run too, on a throwaway SQLite copy of the demo conference. Touches only
# 127.0.0.1, on a free port unless SCHEMATHESIS_PORT names one; exits non-zero when a check fails.
# Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=.venv/bin/python
PORT="${SCHEMATHESIS_PORT:-$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
BASE="http://127.0.0.1:${PORT}"
# A folder of this run's own: another run on the machine keeps its database and log apart.
WORK="$(mktemp -d /tmp/schemathesis.XXXXXX)"
DB="${WORK}/db.sqlite3"
SERVER_LOG="${WORK}/server.log"

export DATABASE_URL="sqlite:///${DB}"
export DJANGO_DEBUG=0
export DJANGO_SECRET_KEY="schemathesis-only-not-a-secret"
export DJANGO_ALLOWED_HOSTS=127.0.0.1
# Fuzzing sends thousands of requests a minute; the production rates would answer most with 429.
export DJANGO_API_ANON_RATE=1000000/minute
export DJANGO_API_USER_RATE=1000000/minute
export DJANGO_API_TOKEN_RATE=1000000/minute

echo "--- fresh database with the demo conference"
"$PYTHON" manage.py migrate --no-input -v 0
"$PYTHON" manage.py load_demo >/dev/null
# The demo organizer's write token every request sends (its key is printed once, on stdout),
# and an attendee account whose password the fuzzer may try.
"$PYTHON" manage.py shell --no-imports -c '
from django.contrib.auth import get_user_model
get_user_model().objects.create_user("attendee", password="schemathesis-attendee")
'
TOKEN="$("$PYTHON" manage.py create_api_token organizer --write --name schemathesis 2>/dev/null)"

echo "--- API server on ${BASE}"
# Two schemathesis workers, each with a sync gunicorn worker to answer it, so both cores work.
# SQLite's writers wait for each other (conference/settings.py), as under `make serve`; a write
# waits at most for another request's, well within --request-timeout.
# Request lines up to gunicorn's largest limit, as `make serve` allows (long filter URLs); a
# longer one gets gunicorn's own HTML 400 before Django sees it.
# Django logs every 4xx as a warning; they go to the log, read back below if a check fails.
WORKERS="${SCHEMATHESIS_WORKERS:-2}"
.venv/bin/gunicorn conference.site.wsgi --bind "127.0.0.1:${PORT}" --workers "$WORKERS" \
    --limit-request-line 8190 >"$SERVER_LOG" 2>&1 &
SERVER=$!
stop_server() {
    local status=$?
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    if [ "$status" -eq 0 ]; then rm -rf "$WORK"; else echo "(database and server log kept in ${WORK})"; fi
}
trap stop_server EXIT
deadline=$((SECONDS + 120))
until "$PYTHON" -c "import urllib.request; urllib.request.urlopen('${BASE}/api/schema/')" 2>/dev/null; do
    kill -0 "$SERVER" 2>/dev/null || { echo "the server did not start:"; cat "$SERVER_LOG"; exit 1; }
    [ "$SECONDS" -lt "$deadline" ] || { echo "the server did not answer:"; cat "$SERVER_LOG"; exit 1; }
    sleep 0.2  # polling for start-up, not waiting for a result
done

CONFIG="${WORK}/schemathesis.toml"
cat >"$CONFIG" <<'TOML'
# Most generated slugs name nothing; steer most requests at the demo's objects so that fuzzing
# reaches validation and the database instead of stopping at a 404.
[dictionaries.conference]
values = ["pytorch-eu-2026"]

[dictionaries.room]
values = ["master-stage", "central-room", "junior-stage", "founders-cafe"]

[dictionaries.track]
values = ["security-privacy", "agents-interop", "frameworks-compilers", "training-systems"]

[dictionaries.speaker]
values = ["mike-krom", "ashesh-vidyut"]

[dictionaries.session]
values = [
    "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds",
    "enabling-the-audio-modality-for-language-models",
    "backpropagation-free-optimization-in-pytorch",
]

[dictionaries.starts]
values = ["2026-04-07T09:00:00+02:00", "2026-04-07T14:00:00+02:00"]

[dictionaries.ends]
values = ["2026-04-07T13:00:00+02:00", "2026-04-07T18:00:00+02:00"]

[dictionaries.username]
values = ["attendee"]

[dictionaries.password]
values = ["schemathesis-attendee"]

# Any version: an If-Match the fuzzer makes up names no version, and the write stops at a 412.
[dictionaries.if_match]
values = ["*"]

[parameters]
"path.conference_slug" = { dictionary = "conference", probability = 0.8 }
"query.conference" = { dictionary = "conference", probability = 0.8 }
"body.conference" = { dictionary = "conference", probability = 0.8 }
"body.room" = { dictionary = "room", probability = 0.5 }
"body.track" = { dictionary = "track", probability = 0.5 }
"body.speakers[*]" = { dictionary = "speaker", probability = 0.5 }
"body.session" = { dictionary = "session", probability = 0.5 }
"path.session_slug" = { dictionary = "session", probability = 0.5 }
"body.starts_at" = { dictionary = "starts", probability = 0.5 }
"body.ends_at" = { dictionary = "ends", probability = 0.5 }
"body.username" = { dictionary = "username", probability = 0.5 }
"body.password" = { dictionary = "password", probability = 0.5 }
"header.If-Match" = { dictionary = "if_match", probability = 0.8 }

# A request the schema alone cannot tell from a valid one may still break a rule that needs the
# data: a slug already in use, a booked room or speaker, a day outside the conference, a filter
# naming a track that does not exist, a wrong password. 400 is the right answer there. Likewise
# an If-Match naming a version other than the current one: 412, which HTTP answers before it
# reads the body, so it is also how an invalid body with a stale If-Match is refused.
[[operations]]
include-method-regex = "^POST$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]

[[operations]]
include-method-regex = "^(PUT|PATCH|DELETE)$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "412", "429"]
checks.negative_data_rejection.expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "412", "415", "422", "428", "429", "5xx"]

[[operations]]
include-operation-id = ["conferences_sessions_list", "me_schedule_list"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]
TOML

echo "--- schemathesis"
status=0
.venv/bin/schemathesis --no-color --config-file "$CONFIG" run "${BASE}/api/schema/" \
    --header "Authorization: Token ${TOKEN}" \
    --checks all \
    --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-25}" \
    --workers "$WORKERS" \
    --request-timeout 10 \
    --generation-database none \
    --seed "${SCHEMATHESIS_SEED:-1}" \
    "$@" || status=$?
if [ "$status" -ne 0 ] && grep -q "Traceback" "$SERVER_LOG"; then
    echo "--- server errors (${SERVER_LOG})"
    grep -B 1 -A 40 "Traceback" "$SERVER_LOG" | tail -n 200
fi
exit "$status"
