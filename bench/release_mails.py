"""Benchmark the mails of a large schedule release: queueing them, then sending them.

A 1,000-session conference (bench/generator.py) in a fresh database, 5,000 attendees with
verified addresses, each saving 3 of the 200 sessions the release moves and 2 it leaves alone.
The release is made as an organizer makes it (``release_schedule``, whose receiver enqueues the
planning task on the database backend), then the planning task runs: it writes one
``ReleaseMail`` per attendee and enqueues the sending tasks. Target: both together under 2 s.
With --send, the sending tasks then run on Django's local-memory mail backend, and every
attendee must have exactly one mail. Results go to bench/results/release_mails.md. See bench/README.md.

    .venv/bin/python bench/release_mails.py [--attendees 5000] [--moved 200] [--send]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, bench_environment, log, reference_loop_ms
from bench.run import drop_server_database, fresh_database

RESULTS = ROOT / "bench" / "results" / "release_mails.md"
SESSIONS = 1000
TARGET_SECONDS = 2.0


def main() -> None:
    args = parse_args()
    if args.child_output:
        measure(args, Path(args.child_output))
        return
    work = Path(tempfile.mkdtemp(prefix="confsched-bench-mails-"))
    try:
        database_url = fresh_database(work, SESSIONS)
        output = work / "result.json"
        command = [sys.executable, __file__, *sys.argv[1:], "--child-output", str(output)]
        reference = reference_loop_ms()
        subprocess.run(command, env=bench_environment(database_url), cwd=ROOT, check=True)
        result = json.loads(output.read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)
        drop_server_database()
    result["reference_loop_ms"] = [reference, reference_loop_ms()]
    RESULTS.write_text(render(result))
    log(RESULTS.read_text())


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attendees", type=int, default=5000)
    parser.add_argument("--moved", type=int, default=200)
    parser.add_argument(
        "--send",
        action="store_true",
        help="Also send every mail (minutes: each is claimed and marked sent by a commit).",
    )
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    return parser.parse_args()


def measure(args: argparse.Namespace, output: Path) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conference.site.settings")
    django.setup()
    from django.core.management import call_command
    from django.test.utils import override_settings

    from bench.generator import generate_conference

    call_command("migrate", verbosity=0)
    conference = generate_conference(SESSIONS, seed=0, slug="bench")
    with override_settings(
        TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
    ):
        result = release_and_queue(conference, args.attendees, args.moved)
        if args.send:
            result.update(send_all(result.pop("attendee_addresses")))
        result.pop("attendee_addresses", None)
    output.write_text(json.dumps(result))


def release_and_queue(conference, attendees: int, moved: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import connection
    from django.db.models import F
    from django.test.utils import CaptureQueriesContext
    from django_tasks_db.models import DBTaskResult

    from conference.models import AccountEmail
    from sessions.models import ReleaseMail, SavedSession, Session
    from sessions.notifications import plan_release_mails
    from sessions.releases import release_schedule

    rng = random.Random(0)
    release_schedule(conference, version="v1", comment="", user=None)
    talks = list(
        Session.objects.filter(conference=conference, kind=Session.Kind.TALK)
        .public()
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    moving = rng.sample(talks, moved)
    staying = [pk for pk in talks if pk not in set(moving)]
    User = get_user_model()  # noqa: N806 -- a model class
    password = make_password(None)
    users = User.objects.bulk_create(
        User(username=f"attendee{n}", email=f"attendee{n}@example.org", password=password)
        for n in range(attendees)
    )
    AccountEmail.objects.bulk_create(
        AccountEmail(user=user, verified_address=user.email) for user in users
    )
    SavedSession.objects.bulk_create(
        (
            SavedSession(user=user, session_id=pk)
            for user in users
            for pk in rng.sample(moving, 3) + rng.sample(staying, 2)
        ),
        batch_size=5000,
    )
    # Ten days later: past the conference, so no moved session meets one that stayed.
    shift = datetime.timedelta(days=10)
    Session.objects.filter(pk__in=moving).update(
        starts_at=F("starts_at") + shift, ends_at=F("ends_at") + shift
    )
    DBTaskResult.objects.all().delete()

    started = time.perf_counter()
    release = release_schedule(conference, version="v2", comment="", user=None)
    released = time.perf_counter()
    [planning] = DBTaskResult.objects.all()  # what the receiver enqueued
    with CaptureQueriesContext(connection) as queries:
        queued = plan_release_mails.call(*planning.args_kwargs["args"])
    planned = time.perf_counter()
    send_tasks = DBTaskResult.objects.filter(task_path__endswith="send_release_mails").count()
    log(f"release {released - started:.2f} s, planning {planned - released:.2f} s")
    return {
        "attendees": attendees,
        "moved": moved,
        "saves": SavedSession.objects.count(),
        "release_s": released - started,
        "plan_s": planned - released,
        "queue_s": planned - started,
        "plan_queries": len(queries),
        "mails_queued": queued,
        "mail_rows": ReleaseMail.objects.filter(release=release).count(),
        "send_tasks": send_tasks,
        "attendee_addresses": [user.email for user in users],
    }


def send_all(addresses: list[str]) -> dict:
    """Run every enqueued sending task, as the worker would; check one mail per attendee."""
    from django.core import mail
    from django_tasks_db.models import DBTaskResult

    from sessions.notifications import send_release_mails

    mail.outbox = []
    started = time.perf_counter()
    for result in DBTaskResult.objects.filter(task_path__endswith="send_release_mails"):
        send_release_mails.call(*result.args_kwargs["args"])
    seconds = time.perf_counter() - started
    received = Counter(message.to[0] for message in mail.outbox)
    exactly_once = received == Counter(addresses)
    log(f"sent {len(mail.outbox)} mails in {seconds:.1f} s; one per attendee: {exactly_once}")
    return {"send_s": seconds, "mails_sent": len(mail.outbox), "one_each": exactly_once}


def render(result: dict) -> str:
    verdict = "within" if result["queue_s"] < TARGET_SECONDS else "OVER"
    lines = [
        "# Release mails",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, N = {SESSIONS} sessions, "
        f"{result['attendees']:,} attendees ({result['saves']:,} saves), "
        f"{result['moved']} sessions moved, reference loop "
        f"{result['reference_loop_ms'][0]:.0f}–{result['reference_loop_ms'][1]:.0f} ms.",
        "",
        "| step | figure |",
        "| --- | ---: |",
        f"| release (snapshot, store, receiver enqueues the planning) | "
        f"{result['release_s'] * 1000:.0f} ms |",
        f"| planning: one mail row per attendee, sending tasks enqueued | "
        f"{result['plan_s'] * 1000:.0f} ms ({result['plan_queries']} queries) |",
        f"| **queueing, both** (target {TARGET_SECONDS:.0f} s: {verdict}) | "
        f"**{result['queue_s'] * 1000:.0f} ms** |",
        f"| mails queued / sending tasks | {result['mails_queued']:,} / {result['send_tasks']} |",
    ]
    if "send_s" in result:
        lines += [
            f"| sending all (local-memory backend, in one process) | {result['send_s']:.1f} s "
            f"({result['send_s'] / max(result['mails_sent'], 1) * 1000:.1f} ms a mail) |",
            f"| mails sent; exactly one per attendee | {result['mails_sent']:,}; "
            f"{'yes' if result['one_each'] else 'NO'} |",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
