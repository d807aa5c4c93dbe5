import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django_tasks_db.models import DBTaskResult

from conference.models import AccountEmail, Conference
from sessions.models import ReleaseMail, SavedSession, Session, SessionSpeaker
from sessions.notifications import (
    MAILS_PER_TASK,
    MailNotSentError,
    plan_release_mails,
    send_release_mails,
)
from sessions.releases import preview_release, release_schedule, speaker_reach
from speakers.invitations import accept_invitation
from speakers.models import SpeakerInvitation
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db

SITE = "https://schedule.example.org"


@pytest.fixture
def conference():
    """A conference named "PyCon Paris" ("pycon-paris"), as the mails' subjects and links read."""
    return make_conference(name="PyCon Paris", slug="pycon-paris")


@pytest.fixture
def central(conference):
    return make_room(conference, name="Central Room", position=1)


@pytest.fixture
def junior(conference):
    return make_room(conference, name="Junior Stage", position=2)


@pytest.fixture
def talks(conference, central):
    return {
        title: make_session(conference, title=title, room=central, starts_at=paris(8, hour))
        for title, hour in [("Graphs", 10), ("Vision", 11), ("Compilers", 12), ("Keynote", 9)]
    }


def make_attendee(username, *, verified=True, saves=(), schedule_changes=True):
    user = get_user_model().objects.create_user(username, f"{username}@example.org", "x")
    AccountEmail.objects.create(
        user=user,
        verified_address=user.email if verified else "",
        schedule_changes=schedule_changes,
    )
    for session in saves:
        SavedSession.objects.create(user=user, session=session, seen_starts_at=session.starts_at)
    return user


def move(session, **fields):
    if "starts_at" in fields:
        session.ends_at = fields["starts_at"] + (session.ends_at - session.starts_at)
    for name, value in fields.items():
        setattr(session, name, value)
    session.save()


@pytest.fixture
def announce(conference, talks, django_capture_on_commit_callbacks):
    """Release the conference's schedule as an organizer does: the receiver runs on commit.

    A first release, unannounced, holds the talks as they are when the test starts.
    """
    release_schedule(conference, version="v1", comment="", user=None)
    versions = iter(range(2, 100))

    def release(comment=""):
        with django_capture_on_commit_callbacks(execute=True):
            return release_schedule(
                conference, version=f"v{next(versions)}", comment=comment, user=None
            )

    return release


def links_in(text):
    return re.findall(r"https?://[^\s\"<>]+", text)


@pytest.mark.usefixtures("immediate_tasks")
def test_an_attendee_gets_one_mail_about_only_their_saved_sessions_that_changed(
    announce, talks, mailoutbox
):
    make_attendee("ada", saves=[talks["Graphs"], talks["Vision"], talks["Keynote"]])
    move(talks["Graphs"], starts_at=paris(8, 14))
    move(talks["Compilers"], starts_at=paris(8, 15))  # saved by nobody
    Session.objects.filter(pk=talks["Keynote"].pk).cancel()

    announce()

    [message] = mailoutbox
    assert message.to == ["ada@example.org"]
    assert message.subject == "PyCon Paris: 2 sessions you saved changed"
    assert "Keynote\n  - Cancelled (was Wed 09:00–09:30 CEST, Central Room)\n" in message.body
    assert (
        "Graphs\n  - Moved from Wed 10:00 to Wed 14:00 (CEST), Central Room\n"
        "  Now: Wednesday 8 April, 14:00–14:30 CEST, Central Room\n"
    ) in message.body
    assert "Vision" not in message.body
    assert "Compilers" not in message.body


@pytest.mark.usefixtures("immediate_tasks")
def test_a_room_change_is_mailed_with_the_new_room(announce, talks, junior, mailoutbox):
    make_attendee("ada", saves=[talks["Vision"]])
    move(talks["Vision"], room=junior)

    announce()

    [message] = mailoutbox
    assert "Vision\n  - Changed room from Central Room to Junior Stage\n" in message.body
    assert "Now: Wednesday 8 April, 11:00–11:30 CEST, Junior Stage" in message.body


@pytest.mark.usefixtures("immediate_tasks")
def test_a_french_conference_mails_its_changes_in_french(
    announce, conference, talks, junior, mailoutbox
):
    conference.language = "fr"
    conference.save()
    make_attendee("ada", saves=[talks["Vision"]])
    move(talks["Vision"], room=junior)

    announce()

    [message] = mailoutbox
    assert message.subject == f"{conference.name} : 1 session que vous avez enregistrée modifiée"
    assert "Vision\n  - Change de salle : de Central Room à Junior Stage\n" in message.body
    assert "Désormais : mercredi 8 avril, 11 h 00–11 h 30 CEST, Junior Stage" in message.body


@pytest.mark.usefixtures("immediate_tasks")
def test_a_retitled_session_is_mailed_to_its_attendees(announce, talks, mailoutbox):
    make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], title="Graphs, revisited")

    announce()

    [message] = mailoutbox
    assert message.subject == "PyCon Paris: 1 session you saved changed"
    assert "Graphs, revisited\n  - Retitled from “Graphs” to “Graphs, revisited”\n" in message.body


@pytest.mark.usefixtures("immediate_tasks")
def test_new_speakers_are_mailed_to_the_attendees_of_the_session(
    announce, conference, talks, mailoutbox
):
    make_attendee("ada", saves=[talks["Vision"]])
    SessionSpeaker.objects.create(
        session=talks["Vision"], speaker=make_speaker(conference, name="Ann Lee"), position=0
    )

    announce()

    [message] = mailoutbox
    assert "Vision\n  - Speakers changed: Ann Lee added\n" in message.body


@pytest.mark.usefixtures("immediate_tasks")
def test_the_first_release_mails_every_change_since_the_conference_was_published(
    conference, central, junior, mailoutbox, django_capture_on_commit_callbacks
):
    """Published with its schedule (its baseline), then changed: the first release an organizer
    makes tells the attendee of each change, not of a cancellation alone."""
    conference.is_published = False
    conference.save()
    talks = {
        title: make_session(conference, title=title, room=central, starts_at=paris(8, hour))
        for title, hour in [("Graphs", 10), ("Vision", 11), ("Compilers", 12), ("Keynote", 9)]
    }
    conference.is_published = True
    conference.save()
    make_attendee("ada", saves=talks.values())
    move(talks["Graphs"], starts_at=paris(8, 14))
    move(talks["Vision"], room=junior)
    move(talks["Compilers"], title="Compilers, faster")
    Session.objects.filter(pk=talks["Keynote"].pk).cancel()

    with django_capture_on_commit_callbacks(execute=True):
        release_schedule(conference, version="v2", comment="", user=None)

    [message] = mailoutbox
    assert message.subject == "PyCon Paris: 4 sessions you saved changed"
    assert [line for line in message.body.splitlines() if line.startswith("  - ")] == [
        "  - Cancelled (was Wed 09:00–09:30 CEST, Central Room)",
        "  - Changed room from Central Room to Junior Stage",
        "  - Retitled from “Compilers” to “Compilers, faster”",
        "  - Moved from Wed 10:00 to Wed 14:00 (CEST), Central Room",
    ]


@pytest.mark.usefixtures("immediate_tasks")
def test_a_session_taken_off_the_schedule_is_mailed_without_a_link(announce, talks, mailoutbox):
    make_attendee("ada", saves=[talks["Vision"]])
    Session.objects.filter(pk=talks["Vision"].pk).unpublish()

    announce()

    [message] = mailoutbox
    assert "Vision\n  - Removed from the schedule (was Wed 11:00–11:30 CEST, Central Room)\n\n" in (
        message.body
    )
    assert "/sessions/vision/" not in message.body


@pytest.mark.usefixtures("immediate_tasks")
def test_a_line_break_in_the_conference_name_does_not_stop_the_mail(
    announce, conference, talks, mailoutbox
):
    make_attendee("ada", saves=[talks["Graphs"]])
    Conference.objects.filter(pk=conference.pk).update(name="PyCon\nParis")
    move(talks["Graphs"], starts_at=paris(8, 14))

    announce()

    assert [message.subject for message in mailoutbox] == [
        "PyCon Paris: 1 session you saved changed"
    ]


@pytest.mark.usefixtures("immediate_tasks")
def test_the_mail_gives_times_in_the_conference_zone_and_says_so(announce, talks, mailoutbox):
    make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))

    announce()

    assert (
        "Times are in Europe/Paris time, the conference's time zone: the zone you may have "
        "picked on the site is remembered by your browser only."
    ) in mailoutbox[0].body


@pytest.mark.usefixtures("immediate_tasks")
def test_an_unverified_address_gets_nothing(announce, talks, mailoutbox):
    make_attendee("ada", verified=False, saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))

    announce()

    assert mailoutbox == []


@pytest.mark.usefixtures("immediate_tasks")
def test_an_address_changed_since_it_was_verified_gets_nothing(announce, talks, mailoutbox):
    ada = make_attendee("ada", saves=[talks["Graphs"]])
    ada.email = "ada@new.example"
    ada.save()
    move(talks["Graphs"], starts_at=paris(8, 14))

    announce()

    assert mailoutbox == []


@pytest.mark.usefixtures("immediate_tasks")
def test_mails_turned_off_in_account_settings_are_not_sent(announce, talks, mailoutbox, client):
    ada = make_attendee("ada", saves=[talks["Graphs"]])
    client.force_login(ada)
    client.post("/accounts/settings/", {"email": "ada@example.org"})  # box left unticked
    move(talks["Graphs"], starts_at=paris(8, 14))

    announce()

    assert mailoutbox == []


@pytest.mark.usefixtures("immediate_tasks")
def test_the_unsubscribe_link_of_a_mail_stops_the_next_ones(announce, talks, mailoutbox):
    make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))
    announce()
    [message] = mailoutbox
    link = message.extra_headers["List-Unsubscribe"].strip("<>")

    Client(enforce_csrf_checks=True).post(
        link.removeprefix(SITE), {"List-Unsubscribe": "One-Click"}
    )
    move(talks["Graphs"], starts_at=paris(8, 16))
    announce()

    assert len(mailoutbox) == 1


@pytest.mark.usefixtures("immediate_tasks")
def test_every_mail_has_list_unsubscribe_headers_for_one_click(announce, talks, mailoutbox):
    ada = make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))

    announce()

    headers = mailoutbox[0].message()
    assert re.fullmatch(rf"<{SITE}/accounts/unsubscribe/[^/>]+/>", headers["List-Unsubscribe"])
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert AccountEmail.objects.get(user=ada).schedule_changes is True  # nothing until POSTed


@pytest.mark.usefixtures("immediate_tasks")
def test_every_mail_has_a_text_and_an_html_part_with_the_same_links(announce, talks, mailoutbox):
    make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))

    announce()

    message = mailoutbox[0]
    [(html, mime_type)] = message.alternatives
    assert mime_type == "text/html"
    assert '<a href="https://schedule.example.org/pycon-paris/sessions/graphs/"' in html
    assert set(links_in(message.body)) == set(links_in(html.replace("&amp;", "&")))


@pytest.mark.usefixtures("immediate_tasks")
def test_a_mail_links_to_sessions_my_schedule_and_unsubscribing_only(announce, talks, mailoutbox):
    """Nothing in it lets a reader act as the recipient: no login, no private calendar."""
    make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))

    announce()

    message = mailoutbox[0]
    unsubscribe = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert set(links_in(message.body)) == {
        f"{SITE}/pycon-paris/sessions/graphs/",
        f"{SITE}/pycon-paris/my-schedule/",
        unsubscribe,
    }


@pytest.mark.usefixtures("immediate_tasks")
def test_a_speaker_with_an_address_gets_their_own_sessions_changes(
    announce, conference, central, talks, mailoutbox
):
    ann = make_speaker(conference, name="Ann Lee", email="ann@speakers.example")
    graphs = make_session(
        conference, title="Sparse graphs", room=central, starts_at=paris(7, 10), speakers=[ann]
    )
    announce()
    mailoutbox.clear()
    move(graphs, title="Sparse graphs, revisited")
    Session.objects.filter(pk=talks["Vision"].pk).cancel()

    announce()

    [message] = mailoutbox
    assert message.to == ["ann@speakers.example"]
    assert message.subject == "PyCon Paris: schedule changes to your session"
    assert "Hello Ann Lee," in message.body
    assert "Retitled from “Sparse graphs” to “Sparse graphs, revisited”" in message.body
    assert "Vision" not in message.body
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


@pytest.mark.usefixtures("immediate_tasks")
def test_a_speaker_with_a_verified_account_is_mailed_there(
    announce, conference, central, mailoutbox
):
    account = make_attendee("bob")
    unverified = make_attendee("carl", verified=False)
    bob = make_speaker(conference, name="Bob Roe", user=account)
    carl = make_speaker(conference, name="Carl Sun", user=unverified)
    silent = make_speaker(conference, name="Dee Ray")  # neither address nor account
    make_session(
        conference,
        title="Robotics",
        room=central,
        starts_at=paris(7, 10),
        speakers=[bob, carl, silent],
    )

    announce()

    assert [message.to for message in mailoutbox] == [["bob@example.org"]]
    assert "Robotics\n  - New: Tue 10:00–10:30 CEST, Central Room\n" in mailoutbox[0].body


@pytest.mark.usefixtures("immediate_tasks")
def test_a_speaker_who_accepted_an_invitation_is_mailed_at_the_invited_address(
    announce, conference, central, mailoutbox
):
    # A forwardable invitation, accepted by an account whose address is not yet confirmed:
    # the speaker has no address of their own and no confirmed one.
    account = make_attendee("ann", verified=False)
    ann = make_speaker(conference, name="Ann Lee")
    invitation = SpeakerInvitation.objects.create(
        speaker=ann, email="ann@speakers.example", forwardable=True
    )
    accept_invitation(invitation, account)
    graphs = make_session(
        conference, title="Sparse graphs", room=central, starts_at=paris(7, 10), speakers=[ann]
    )
    announce()
    mailoutbox.clear()
    move(graphs, starts_at=paris(7, 14))

    announce()

    [message] = mailoutbox
    assert message.to == ["ann@speakers.example"]
    assert "Moved from Tue 10:00 to Tue 14:00 (CEST), Central Room" in message.body


@pytest.mark.usefixtures("immediate_tasks")
def test_a_speaker_whose_account_confirms_an_address_is_mailed_there_not_at_the_invited_one(
    announce, conference, central, mailoutbox
):
    account = make_attendee("ann", verified=False)
    ann = make_speaker(conference, name="Ann Lee")
    invitation = SpeakerInvitation.objects.create(
        speaker=ann, email="old@speakers.example", forwardable=True
    )
    accept_invitation(invitation, account)
    AccountEmail.objects.filter(user=account).update(verified_address=account.email)
    make_session(conference, room=central, starts_at=paris(7, 10), speakers=[ann])

    announce()

    assert [message.to for message in mailoutbox] == [["ann@example.org"]]


@pytest.mark.usefixtures("immediate_tasks")
def test_a_speaker_is_told_of_their_talks_though_their_account_turned_off_saved_session_mails(
    announce, conference, central, mailoutbox
):
    account = make_attendee("ann", schedule_changes=False)
    ann = make_speaker(conference, name="Ann Lee", user=account)
    make_session(conference, room=central, starts_at=paris(7, 10), speakers=[ann])

    announce()

    assert [message.to for message in mailoutbox] == [["ann@example.org"]]


@pytest.mark.usefixtures("immediate_tasks")
def test_the_release_preview_names_the_very_speakers_the_release_mails(
    announce, conference, central, mailoutbox
):
    invited = make_attendee("cy", verified=False)
    speakers = [
        make_speaker(conference, name="Ann Lee", email="ann@speakers.example"),
        make_speaker(conference, name="Bo Chen", user=make_attendee("bo")),
        make_speaker(conference, name="Cy Diaz"),
        make_speaker(conference, name="Di Eve", user=make_attendee("di", verified=False)),
        make_speaker(conference, name="Ed Fox", email="ed@x.example", schedule_change_mails=False),
    ]
    accept_invitation(
        SpeakerInvitation.objects.create(
            speaker=speakers[2], email="cy@speakers.example", forwardable=True
        ),
        invited,
    )
    graphs = make_session(conference, room=central, starts_at=paris(7, 10), speakers=speakers[:3])
    announce()
    mailoutbox.clear()
    # Ann leaves the session: she gave it before this release, and is told too.
    SessionSpeaker.objects.filter(session=graphs, speaker=speakers[0]).delete()
    graphs.speakers.add(*speakers[3:])
    move(graphs, starts_at=paris(7, 14))

    reach = speaker_reach(preview_release(conference).changes)
    announce()

    previewed = sorted(speaker.reach_address for speaker in reach.mailed)
    assert (
        previewed
        == sorted(message.to[0] for message in mailoutbox)
        == [
            "ann@speakers.example",
            "bo@example.org",
            "cy@speakers.example",
        ]
    )
    assert [speaker.name for speaker in reach.unreachable] == ["Di Eve"]
    assert [speaker.name for speaker in reach.unsubscribed] == ["Ed Fox"]


@pytest.mark.usefixtures("immediate_tasks")
def test_a_speaker_who_unsubscribed_gets_nothing(announce, conference, central, mailoutbox):
    ann = make_speaker(conference, email="ann@speakers.example", schedule_change_mails=False)
    make_session(conference, room=central, starts_at=paris(7, 10), speakers=[ann])

    announce()

    assert mailoutbox == []


def test_releasing_enqueues_the_mails_and_sends_none_itself(
    announce, talks, mailoutbox, dummy_tasks, settings, django_capture_on_commit_callbacks
):
    make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))

    release = announce()

    assert mailoutbox == []
    [queued] = dummy_tasks.results
    assert (queued.task, queued.args) == (plan_release_mails, [release.pk])
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    with django_capture_on_commit_callbacks(execute=True):
        plan_release_mails.call(*queued.args)
    assert [message.to for message in mailoutbox] == [["ada@example.org"]]


def test_planning_enqueues_the_mails_in_batches_and_sends_none(
    announce, talks, mailoutbox, dummy_tasks, django_capture_on_commit_callbacks
):
    for number in range(MAILS_PER_TASK + 1):
        make_attendee(f"attendee{number}", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))
    release = announce()

    with django_capture_on_commit_callbacks(execute=True):
        assert plan_release_mails.call(release.pk) == MAILS_PER_TASK + 1

    sends = [result for result in dummy_tasks.results if result.task == send_release_mails]
    assert [len(result.args[1]) for result in sends] == [MAILS_PER_TASK, 1]
    assert mailoutbox == []


@pytest.mark.usefixtures("immediate_tasks")
def test_each_of_many_attendees_gets_exactly_one_mail(announce, talks, mailoutbox):
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"attendee{number}", email=f"a{number}@example.org")
        for number in range(MAILS_PER_TASK + 20)
    )
    AccountEmail.objects.bulk_create(
        AccountEmail(user=user, verified_address=user.email) for user in users
    )
    SavedSession.objects.bulk_create(
        SavedSession(user=user, session=talks[title])
        for user in users
        for title in ("Graphs", "Vision", "Compilers")
    )
    for hour, title in [(14, "Graphs"), (15, "Vision"), (16, "Compilers")]:
        move(talks[title], starts_at=paris(8, hour))

    announce()

    assert sorted(message.to[0] for message in mailoutbox) == sorted(u.email for u in users)
    assert all(message.subject.endswith(": 3 sessions you saved changed") for message in mailoutbox)


@pytest.mark.usefixtures("immediate_tasks")
def test_running_the_tasks_again_mails_nobody_twice(announce, talks, mailoutbox):
    make_attendee("ada", saves=[talks["Graphs"]])
    make_attendee("bob", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))
    release = announce()
    mail_ids = list(release.mails.values_list("pk", flat=True))

    assert plan_release_mails.call(release.pk) == 0
    assert send_release_mails.call(release.pk, mail_ids) == 0

    assert sorted(message.to[0] for message in mailoutbox) == [
        "ada@example.org",
        "bob@example.org",
    ]
    assert set(release.mails.values_list("status", flat=True)) == {ReleaseMail.Status.SENT}


def test_a_mail_that_failed_is_sent_by_the_next_run_and_the_others_are_not_again(
    announce, talks, mailoutbox, dummy_tasks, monkeypatch, django_capture_on_commit_callbacks
):
    make_attendee("ada", saves=[talks["Graphs"]])
    make_attendee("bob", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))
    release = announce()
    with django_capture_on_commit_callbacks(execute=True):
        plan_release_mails.call(release.pk)
    [batch] = [result for result in dummy_tasks.results if result.task == send_release_mails]

    from django.core.mail import EmailMultiAlternatives

    send = EmailMultiAlternatives.send

    def fail_for_bob(message, *args, **kwargs):
        if message.to == ["bob@example.org"]:
            raise OSError("mail server went away")
        return send(message, *args, **kwargs)

    monkeypatch.setattr(EmailMultiAlternatives, "send", fail_for_bob)
    with pytest.raises(MailNotSentError):
        send_release_mails.call(*batch.args)
    monkeypatch.setattr(EmailMultiAlternatives, "send", send)
    assert send_release_mails.call(*batch.args) == 1

    assert [message.to for message in mailoutbox] == [["ada@example.org"], ["bob@example.org"]]


def test_someone_who_unsubscribed_after_the_release_is_skipped(
    announce, talks, mailoutbox, dummy_tasks, django_capture_on_commit_callbacks
):
    ada = make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))
    release = announce()
    with django_capture_on_commit_callbacks(execute=True):
        plan_release_mails.call(release.pk)
    AccountEmail.objects.filter(user=ada).update(schedule_changes=False)

    [batch] = [result for result in dummy_tasks.results if result.task == send_release_mails]
    assert send_release_mails.call(*batch.args) == 0

    assert mailoutbox == []
    assert release.mails.get().status == ReleaseMail.Status.SKIPPED


def test_mail_release_queues_the_unsent_mails_of_a_release_again(
    announce, talks, mailoutbox, settings, django_capture_on_commit_callbacks
):
    make_attendee("ada", saves=[talks["Graphs"]])
    move(talks["Graphs"], starts_at=paris(8, 14))
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    release = announce()  # enqueued, never run: as if the worker had stopped
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    out = io.StringIO()

    with django_capture_on_commit_callbacks(execute=True):
        call_command("mail_release", "pycon-paris", release.version, stdout=out)
        call_command("mail_release", "pycon-paris", release.version, stdout=io.StringIO())

    assert [message.to for message in mailoutbox] == [["ada@example.org"]]
    assert "Queued the mails of PyCon Paris v2" in out.getvalue()


def test_mail_release_names_a_release_it_cannot_find():
    make_conference(slug="pycon-paris")
    message = "The conference “pycon-paris” has no release “v9”."
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("mail_release", "pycon-paris", "v9")


@pytest.mark.django_db(transaction=True)
def test_the_database_queue_holds_the_mails_until_the_worker_runs(mailoutbox, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    conference = make_conference(slug="pycon-paris")
    graphs = make_session(conference, title="Graphs", room=make_room(conference))
    make_attendee("ada", saves=[graphs])
    release_schedule(conference, version="v1", comment="", user=None)
    move(graphs, starts_at=paris(8, 14))

    release_schedule(conference, version="v2", comment="", user=None)

    assert mailoutbox == []
    assert DBTaskResult.objects.filter(status="READY").count() == 2  # v1's planning, and v2's
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", verbosity=0)
    assert [message.to for message in mailoutbox] == [["ada@example.org"]]
    assert set(DBTaskResult.objects.values_list("status", flat=True)) == {"SUCCESSFUL"}
