import datetime
import json
import re
from html import unescape

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.messages import get_messages
from django.urls import reverse

from sessions.models import Session
from sessions.planner import last_change_text
from sessions.releases import preview_release, release_schedule
from speakers.models import Availability
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_team,
    make_track,
    make_unscheduled_session,
    paris,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def planner_url(conference, day=None):
    url = reverse("admin:schedule_session_planner", args=[conference.pk])
    return f"{url}?day={day}" if day else url


def move_url(session):
    return reverse("admin:schedule_session_planner_move", args=[session.conference_id, session.pk])


def undo_url(conference):
    return reverse("admin:schedule_session_planner_undo", args=[conference.pk])


def post_move(client, session, headers=HTMX, **data):
    """What drag and drop, the keyboard and the “Move to…” form post."""
    fields = {"version": session.version, "action": "place", **data}
    return client.post(move_url(session), fields, headers=headers)


def block_ids(html: str, room_key: str) -> list[str]:
    """The sessions drawn in one room's column, by pk, top to bottom as written."""
    column = html.split(f'data-room="{room_key}"', 1)[1].split('class="planner-column"', 1)[0]
    return re.findall(r'id="planner-session-(\d+)"', column)


def outcome_of(response) -> str:
    """The status line a move answers an htmx request with, as the organizer reads it."""
    found = re.search(r"data-outcome=\"\w+\">([^<]*)<", response.content.decode())
    return unescape(found[1])


@pytest.fixture
def central(conference):
    return make_room(conference, name="Central Room", position=1)


@pytest.fixture
def master(conference):
    return make_room(conference, name="Master Stage", position=0)


# The page ------------------------------------------------------------------------------------


def test_planner_shows_rooms_in_display_order_with_each_session_in_its_room(
    admin_client, conference, central, master
):
    talk = make_session(conference, room=central, starts_at=paris(8, 10, 35))
    keynote = make_session(
        conference, room=master, starts_at=paris(8, 9), kind=Session.Kind.KEYNOTE
    )
    response = admin_client.get(planner_url(conference, "2026-04-08"))
    assert response.status_code == 200
    html = response.content.decode()
    assert [column.name for column in response.context["planner"].columns] == [
        "Master Stage",
        "Central Room",
    ]
    assert block_ids(html, str(master.pk)) == [str(keynote.pk)]
    assert block_ids(html, str(central.pk)) == [str(talk.pk)]


def test_a_block_is_as_many_rows_high_as_its_five_minute_slots(admin_client, conference, central):
    talk = make_session(
        conference, room=central, starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 0)
    )
    html = admin_client.get(planner_url(conference, "2026-04-08")).content.decode()
    # Rows start at 08:00: 10:35 is row 32, and 25 minutes are 5 rows.
    assert re.search(rf'id="planner-session-{talk.pk}" class="planner-block r32 s5 ', html)


def test_a_block_names_kind_speakers_track_and_marks_drafts_and_cancelled(
    admin_client, conference, central
):
    track = make_track(conference, name="Compilers")
    speaker = make_speaker(conference, name="Bin Bao")
    make_session(
        conference,
        title="Wrapper Mode",
        kind=Session.Kind.LIGHTNING_TALK,
        room=central,
        track=track,
        status=Session.Status.DRAFT,
        speakers=[speaker],
    )
    make_session(conference, title="Gone", room=central, starts_at=paris(8, 11), status="cancelled")
    html = admin_client.get(planner_url(conference, "2026-04-08")).content.decode()
    assert "Lightning Talk: Wrapper Mode" in html
    assert "10:00–10:30</span></p>" in html
    assert "11:00–11:30</span> · Talk</p>" in html
    assert '<p class="planner-speakers">Bin Bao</p>' in html
    assert '<p class="planner-track">Compilers</p>' in html
    assert "track-compilers is-draft" in html
    assert '<span class="planner-badge is-draft">Draft</span>' in html
    assert '<span class="planner-badge is-cancelled">Cancelled</span>' in html


def test_day_tabs_switch_the_day_shown(admin_client, conference, central):
    first = make_session(conference, room=central, starts_at=paris(7, 10))
    second = make_session(conference, room=central, starts_at=paris(8, 10))
    response = admin_client.get(planner_url(conference, "2026-04-07"))
    html = response.content.decode()
    assert block_ids(html, str(central.pk)) == [str(first.pk)]
    assert "?day=2026-04-08" in html
    response = admin_client.get(planner_url(conference, "2026-04-08"))
    assert block_ids(response.content.decode(), str(central.pk)) == [str(second.pk)]


def test_without_a_day_the_planner_opens_the_first_day_with_sessions(
    admin_client, conference, central
):
    make_session(conference, room=central, starts_at=paris(8, 10))
    response = admin_client.get(planner_url(conference))
    assert response.context["day"] == datetime.date(2026, 4, 8)


@pytest.mark.parametrize(
    ("day", "status"),
    [("2026-05-01", 200), ("yesterday", 200), ("9999-12-31", 200), ("2026-04-08\x00", 400)],
)
def test_a_day_outside_the_conference_shows_its_first_busy_day(
    admin_client, conference, central, day, status
):
    make_session(conference, room=central, starts_at=paris(8, 10))
    response = admin_client.get(planner_url(conference) + "?day=" + day)
    assert response.status_code == status  # NUL is refused before any view
    if status == 200:
        assert response.context["day"] == datetime.date(2026, 4, 8)


def test_venue_wide_sessions_get_a_whole_venue_column_first(admin_client, conference, central):
    lunch = make_session(conference, title="Lunch", kind=Session.Kind.BREAK, starts_at=paris(8, 13))
    response = admin_client.get(planner_url(conference, "2026-04-08"))
    assert [column.key for column in response.context["planner"].columns] == [
        "venue",
        str(central.pk),
    ]
    assert block_ids(response.content.decode(), "venue") == [str(lunch.pk)]


def test_planner_is_linked_from_the_session_list_and_the_conference(admin_client, conference):
    url = planner_url(conference)
    changelist = admin_client.get(reverse("admin:schedule_session_changelist"))
    assert f'href="{url}"' in changelist.content.decode()
    change = admin_client.get(reverse("admin:conference_conference_change", args=[conference.pk]))
    assert f'href="{url}"' in change.content.decode()


def test_planner_serves_no_inline_script_or_style(admin_client, conference, central):
    make_session(conference, room=central)
    response = admin_client.get(planner_url(conference, "2026-04-08"))
    html = response.content.decode()
    assert "style=" not in html
    assert "<style" not in html
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_rows_stylesheet_is_cacheable_css(admin_client):
    response = admin_client.get(reverse("admin:schedule_session_planner_rows"))
    assert response["Content-Type"] == "text/css; charset=utf-8"
    assert "max-age=86400" in response["Cache-Control"]
    body = response.content.decode()
    assert ".r32{grid-row-start:32}.s32{grid-row-end:span 32}" in body
    assert ".s300{grid-row-end:span 300}" in body  # a 25-hour day


# Who may plan -------------------------------------------------------------------------------


def test_anonymous_visitors_are_sent_to_the_admin_login(client, conference):
    response = client.get(planner_url(conference))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_attendees_are_sent_to_the_admin_login(client, django_user_model, conference):
    client.force_login(django_user_model.objects.create_user("attendee"))
    assert client.get(planner_url(conference)).status_code == 302


@pytest.mark.parametrize(
    ("roles", "status"), [({}, 404), ({"is_reviewer": True}, 403), ({"is_venue": True}, 403)]
)
def test_those_who_may_not_change_its_sessions_are_refused_the_planner(
    client, django_user_model, conference, central, roles, status
):
    """A member of its teams without the role is refused; to others it does not exist."""
    staff = django_user_model.objects.create_user("helper", is_staff=True)
    if roles:
        make_team(staff, conferences=[conference], **roles)
    session = make_session(conference, room=central)
    client.force_login(staff)
    assert client.get(planner_url(conference)).status_code == status
    assert client.get(move_url(session)).status_code == status
    assert (
        post_move(client, session, room=central.pk, starts_at="2026-04-08T11:00").status_code
        == status
    )
    session.refresh_from_db()
    assert session.starts_at == paris(8, 10)


def test_the_programme_team_may_plan(client, django_user_model, conference, central):
    staff = django_user_model.objects.create_user("organizer", is_staff=True)
    make_team(staff, conferences=[conference], is_programme=True)
    session = make_session(conference, room=central)
    client.force_login(staff)
    assert client.get(planner_url(conference)).status_code == 200
    response = post_move(client, session, room=central.pk, starts_at="2026-04-08T11:00")
    assert response.status_code == 200
    session.refresh_from_db()
    assert session.starts_at == paris(8, 11)


def test_unknown_conference_or_session_is_a_404(admin_client, conference, central):
    session = make_session(conference, room=central)
    other = make_conference()
    assert admin_client.get(planner_url(other).replace(str(other.pk), "999999")).status_code == 404
    url = reverse("admin:schedule_session_planner_move", args=[other.pk, session.pk])
    assert admin_client.post(url, {"version": session.version}).status_code == 404


# Moving -------------------------------------------------------------------------------------


def test_a_move_keeps_the_length_and_saves_a_new_version(admin_client, conference, central, master):
    session = make_session(
        conference, room=central, starts_at=paris(8, 10), ends_at=paris(8, 10, 25)
    )
    response = post_move(admin_client, session, room=master.pk, starts_at="2026-04-08T14:40")
    assert response.status_code == 200
    assert response["HX-Trigger"] == "planner-moved"
    assert outcome_of(response) == (
        f"Moved “{session}” to Master Stage, Wednesday 8 April 2026 14:40–15:05 CEST."
    )
    moved = Session.objects.get(pk=session.pk)
    assert (moved.room, moved.starts_at, moved.ends_at) == (
        master,
        paris(8, 14, 40),
        paris(8, 15, 5),
    )
    assert moved.version == session.version + 1


def test_a_start_with_its_offset_is_taken_as_that_instant(admin_client, conference, central):
    session = make_session(conference, room=central)
    post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T09:40:00.000Z")
    session.refresh_from_db()
    assert session.starts_at == paris(8, 11, 40)


def test_a_move_onto_a_booked_room_is_refused_naming_the_session_there(
    admin_client, conference, central
):
    make_session(conference, title="Compiler Deep Dive", room=central, starts_at=paris(8, 11))
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    response = post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T11:15")
    assert outcome_of(response) == (
        f"Not moved: “{session}”: Central Room already hosts “Compiler Deep Dive” then "
        "(Wednesday 8 April 2026 11:00–11:30 CEST)."
    )
    assert Session.objects.get(pk=session.pk).starts_at == paris(8, 10)


def test_a_move_that_double_books_a_speaker_is_refused(admin_client, conference, central, master):
    speaker = make_speaker(conference, name="Ada")
    make_session(
        conference, title="Keynote", room=master, starts_at=paris(8, 11), speakers=[speaker]
    )
    session = make_session(conference, room=central, starts_at=paris(8, 10), speakers=[speaker])
    response = post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T11:10")
    assert "Ada already gives “Keynote” then" in outcome_of(response)
    assert Session.objects.get(pk=session.pk).starts_at == paris(8, 10)


def test_a_move_outside_the_conference_days_is_refused(admin_client, conference, central):
    session = make_session(conference, room=central)
    response = post_move(admin_client, session, room=central.pk, starts_at="2026-04-09T10:00")
    assert "this session must lie within those days" in outcome_of(response)
    assert Session.objects.get(pk=session.pk).starts_at == paris(8, 10)


@pytest.fixture
def bea(client, django_user_model):
    """A second organizer, in a browser of her own."""
    user = django_user_model.objects.create_superuser(
        "bea", "bea@example.org", "x", first_name="Bea", last_name="Ortiz"
    )
    client.force_login(user)
    client.user = user
    return client


CLOCK = r"at \d\d:\d\d CES?T"  # now, on the conference's clocks


def test_a_move_based_on_an_old_version_says_who_moved_it_where_and_when(
    admin_client, bea, conference, central, master
):
    session = make_session(conference, title="Graphs", room=central)
    seen = session.version
    post_move(bea, session, room=master.pk, starts_at="2026-04-08T15:00")
    response = post_move(
        admin_client, session, version=seen, room=central.pk, starts_at="2026-04-08T16:00"
    )
    assert re.fullmatch(
        "Not moved: Bea Ortiz moved “Graphs” to Master Stage, Wednesday 8 April 2026 "
        f"15:00–15:30 CEST {CLOCK}. The board now shows it as it is: move it again if you "
        "still want to.",
        outcome_of(response),
    )
    assert "version" not in outcome_of(response)
    assert response["HX-Trigger"] == "planner-moved"  # the board is drawn again
    assert Session.objects.get(pk=session.pk).starts_at == paris(8, 15)


def test_a_move_after_an_admin_edit_says_who_changed_what(admin_client, bea, conference, central):
    session = make_session(conference, title="Graphs", room=central)
    seen = session.version
    session.title = "Graphs, revisited"
    session.save()
    LogEntry.objects.log_actions(
        bea.user.pk,
        [session],
        CHANGE,
        change_message=json.dumps([{"changed": {"fields": ["Title"]}}]),
        single_object=True,
    )
    response = post_move(
        admin_client, session, version=seen, room=central.pk, starts_at="2026-04-08T16:00"
    )
    assert re.fullmatch(
        f"Not moved: Bea Ortiz changed “Graphs, revisited” \\(changed title\\) {CLOCK}; it is "
        "in Central Room, Wednesday 8 April 2026 10:00–10:30 CEST. The board now shows it as "
        "it is: move it again if you still want to.",
        outcome_of(response),
    )


def test_a_move_after_a_change_outside_the_admin_says_so_and_where_it_is(
    admin_client, conference, central
):
    session = make_session(conference, title="Graphs", room=central)
    seen = session.version
    session.save()  # as the API or an import saves: no history
    response = post_move(
        admin_client, session, version=seen, room=central.pk, starts_at="2026-04-08T16:00"
    )
    assert outcome_of(response) == (
        "Not moved: Someone changed “Graphs” meanwhile, outside the planner and the admin's "
        "forms (an import, the API or an action on the session list); it is in Central Room, "
        "Wednesday 8 April 2026 10:00–10:30 CEST. The board now shows it as it is: move it "
        "again if you still want to."
    )


def test_a_session_deleted_while_moving_it_is_named_not_a_500(conference, central, admin_user):
    session = make_session(conference, title="Graphs", room=central)
    Session.objects.filter(pk=session.pk).delete()
    assert last_change_text(session, admin_user) == "Someone deleted “Graphs” meanwhile."


def test_a_planner_move_is_in_the_sessions_admin_history(admin_client, conference, central):
    session = make_session(conference, title="Graphs", room=central)
    post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T16:00")
    [entry] = LogEntry.objects.filter(object_id=str(session.pk))
    assert entry.get_change_message() == "Changed Starts and Ends."


def test_a_start_off_the_five_minute_grid_is_refused(admin_client, conference, central):
    session = make_session(conference, room=central)
    response = post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T10:37")
    assert "Start on a 5-minute step (10:37 is not one)" in outcome_of(response)
    assert Session.objects.get(pk=session.pk).starts_at == paris(8, 10)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"version": "abc"}, "Enter a whole number."),
        ({"version": "99999999999999999999"}, "less than or equal to"),
        ({"action": "teleport"}, "Select a valid choice."),
        ({"starts_at": "tomorrow"}, "Enter a valid date/time."),
        ({"starts_at": "9999-12-31T23:55"}, "No session can start that late"),
        ({"starts_at": "2026-04-06T23:00+02:00"}, "this session must lie within those days"),
        ({"room": "999999"}, "Select a valid choice."),
        ({"room": ""}, "Choose the room to move it to"),
        ({"starts_at": ""}, "Give the time it starts."),
    ],
)
def test_bad_input_is_refused_with_a_reason_and_saves_nothing(
    admin_client, conference, central, data, message
):
    session = make_session(conference, room=central)
    fields = {"room": central.pk, "starts_at": "2026-04-08T11:00", **data}
    response = post_move(admin_client, session, **fields)
    assert response.status_code == 200
    assert message in outcome_of(response)
    assert Session.objects.get(pk=session.pk).version == session.version


def test_a_room_of_another_conference_is_not_a_choice(admin_client, conference, central):
    elsewhere = make_room(make_conference(), name="Elsewhere")
    session = make_session(conference, room=central)
    response = post_move(admin_client, session, room=elsewhere.pk, starts_at="2026-04-08T11:00")
    assert "Select a valid choice." in outcome_of(response)
    assert Session.objects.get(pk=session.pk).room == central


def test_a_session_may_move_to_the_whole_venue(admin_client, conference, central):
    session = make_session(conference, room=central, kind=Session.Kind.BREAK)
    post_move(admin_client, session, room="venue", starts_at="2026-04-08T12:30")
    session.refresh_from_db()
    assert (session.room, session.starts_at) == (None, paris(8, 12, 30))


# The unscheduled list ---------------------------------------------------------------------------


def test_unscheduled_sessions_wait_in_the_side_list(admin_client, conference, central):
    waiting = make_unscheduled_session(conference, title="Waiting talk")
    make_session(conference, room=central)
    response = admin_client.get(planner_url(conference, "2026-04-08"))
    assert response.context["unscheduled"] == [waiting]
    assert "Waiting talk" in response.content.decode().split('id="planner-unscheduled"')[1]


def test_side_list_says_why_an_import_held_a_session(admin_client, conference):
    make_unscheduled_session(
        conference, title="Relay", held_reason="Fefe already gives “Fnord News Show” then."
    )

    response = admin_client.get(planner_url(conference, "2026-04-08"))

    side_list = response.content.decode().split('id="planner-unscheduled"')[1]
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", side_list)).split())
    assert "Held by an import: Fefe already gives “Fnord News Show” then." in text


def test_side_list_filters_by_search_track_and_kind(admin_client, conference):
    track = make_track(conference, name="Security")
    make_unscheduled_session(conference, title="Fuzzing PyTorch", track=track)
    make_unscheduled_session(
        conference, title="Fuzzing in five minutes", kind=Session.Kind.LIGHTNING_TALK, track=track
    )
    make_unscheduled_session(conference, title="Quantization")
    url = planner_url(conference)

    def titles(query):
        return [session.title for session in admin_client.get(url + query).context["unscheduled"]]

    assert titles("?q=fuzz") == ["Fuzzing in five minutes", "Fuzzing PyTorch"]  # A to Z, any case
    assert titles("?track=security&kind=talk") == ["Fuzzing PyTorch"]
    assert titles("?q=&track=&kind=") == [
        "Fuzzing in five minutes",
        "Fuzzing PyTorch",
        "Quantization",
    ]


def test_side_list_ignores_an_unknown_filter_value_and_says_so(admin_client, conference):
    make_unscheduled_session(conference, title="Quantization")
    response = admin_client.get(planner_url(conference) + "?track=nope&kind=opera")
    assert [session.title for session in response.context["unscheduled"]] == ["Quantization"]
    assert "(ignored)" in response.content.decode()


def test_htmx_asks_for_the_side_list_alone(admin_client, conference):
    make_unscheduled_session(conference, title="Quantization")
    response = admin_client.get(
        planner_url(conference) + "?q=quant",
        headers={**HTMX, "HX-Target": "planner-unscheduled"},
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="planner-unscheduled"')
    assert "Quantization" in html
    assert "planner-column" not in html


def test_htmx_asks_for_the_board_after_a_move(admin_client, conference, central):
    make_session(conference, room=central)
    response = admin_client.get(
        planner_url(conference, "2026-04-08"), headers={**HTMX, "HX-Target": "planner-board"}
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="planner-board"')
    assert "planner-column" in html
    assert "<html" not in html


def test_placing_from_the_side_list_uses_its_planned_length_and_keeps_it_a_draft(
    admin_client, conference, central
):
    session = make_unscheduled_session(conference, planned_minutes=40)
    response = post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T09:00")
    assert response["HX-Trigger"] == "planner-moved"
    session.refresh_from_db()
    assert (session.room, session.starts_at, session.ends_at, session.status) == (
        central,
        paris(8, 9),
        paris(8, 9, 40),
        Session.Status.DRAFT,
    )


def test_a_session_without_a_planned_length_takes_the_usual_length_of_its_kind(
    admin_client, conference, central
):
    session = make_unscheduled_session(conference, kind=Session.Kind.WORKSHOP)
    post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T14:00")
    session.refresh_from_db()
    assert session.ends_at == paris(8, 15, 30)


def test_unscheduling_takes_a_draft_off_the_schedule_and_remembers_its_length(
    admin_client, conference, central
):
    session = make_session(
        conference, room=central, status="draft", starts_at=paris(8, 10), ends_at=paris(8, 10, 25)
    )
    response = post_move(admin_client, session, action="unschedule")
    assert outcome_of(response) == f"Moved “{session}” to the unscheduled list."
    session.refresh_from_db()
    assert (session.room, session.starts_at, session.ends_at, session.planned_minutes) == (
        None,
        None,
        None,
        25,
    )


def test_unscheduling_a_published_session_unconfirmed_is_refused_asking_to_confirm(
    admin_client, conference, central
):
    session = make_session(conference, room=central)
    response = post_move(admin_client, session, action="unschedule")
    assert outcome_of(response) == (
        f"Not moved: “{session}” is published: taking it off the schedule unpublishes it, and "
        "the next release announces it as removed. Confirm that to go on."
    )
    session.refresh_from_db()
    assert (session.room, session.status) == (central, "published")


def test_unscheduling_a_published_session_confirmed_unpublishes_it_and_the_release_removes_it(
    admin_client, conference, central
):
    conference.is_published = True
    conference.save()
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    release_schedule(conference, version="v1", comment="", user=None)

    response = post_move(admin_client, session, action="unschedule", unpublish="on")

    assert outcome_of(response) == (
        f"Unpublished “{session}” and moved it to the unscheduled list: the next release "
        "lists it as removed."
    )
    session.refresh_from_db()
    assert (session.status, session.room, session.starts_at) == ("draft", None, None)
    changes = preview_release(conference).changes
    assert [(change.kind, change.session_id) for change in changes] == [("removed", session.pk)]
    entry = LogEntry.objects.get(object_id=str(session.pk))
    assert entry.get_change_message() == "Changed Room, Starts, Ends and Status."


def test_undo_of_an_unpublishing_unschedule_publishes_it_again_where_it_was(
    admin_client, conference, central
):
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    post_move(admin_client, session, action="unschedule", unpublish="on")

    response = admin_client.post(undo_url(conference), headers=HTMX)

    assert outcome_of(response) == (
        f"Undone: “{session}” is back in Central Room, Wednesday 8 April 2026 10:00–10:30 CEST."
    )
    session.refresh_from_db()
    assert (session.status, session.room, session.starts_at) == ("published", central, paris(8, 10))


def test_the_plain_move_form_of_a_published_session_offers_to_unpublish_it(
    admin_client, conference, central
):
    published = make_session(conference, room=central, starts_at=paris(8, 10))
    draft = make_session(conference, room=central, starts_at=paris(8, 11), status="draft")

    assert 'name="unpublish"' in admin_client.get(move_url(published)).content.decode()
    assert 'name="unpublish"' not in admin_client.get(move_url(draft)).content.decode()


def test_a_cancelled_session_is_not_unscheduled_even_confirmed(admin_client, conference, central):
    session = make_session(conference, room=central, status="cancelled")
    response = post_move(admin_client, session, action="unschedule", unpublish="on")
    assert "is cancelled and stays in the schedule" in outcome_of(response)
    session.refresh_from_db()
    assert (session.status, session.room) == ("cancelled", central)


# Undo -----------------------------------------------------------------------------------------


def test_undo_puts_the_last_moved_session_back(admin_client, conference, central, master):
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    response = post_move(admin_client, session, room=master.pk, starts_at="2026-04-08T16:00")
    assert f"Undo: put “{session}” back" in response.content.decode()
    response = admin_client.post(undo_url(conference), headers=HTMX)
    assert outcome_of(response) == (
        f"Undone: “{session}” is back in Central Room, Wednesday 8 April 2026 10:00–10:30 CEST."
    )
    assert response["HX-Trigger"] == "planner-moved"
    assert "Undo:" not in response.content.decode()  # one step only
    session.refresh_from_db()
    assert (session.room, session.starts_at) == (central, paris(8, 10))


def test_undo_of_a_placement_returns_the_session_to_the_side_list(
    admin_client, conference, central
):
    session = make_unscheduled_session(conference)
    post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T09:00")
    admin_client.post(undo_url(conference), headers=HTMX)
    session.refresh_from_db()
    assert session.is_unscheduled


def test_undo_is_refused_when_someone_changed_the_session_since(
    admin_client, bea, conference, central, master
):
    session = make_session(conference, title="Graphs", room=central, starts_at=paris(8, 10))
    post_move(admin_client, session, room=master.pk, starts_at="2026-04-08T16:00")
    session.refresh_from_db()
    post_move(bea, session, room=master.pk, starts_at="2026-04-08T17:00")
    response = admin_client.post(undo_url(conference), headers=HTMX)
    assert outcome_of(response).startswith(
        "Not moved: Bea Ortiz moved “Graphs” to Master Stage, Wednesday 8 April 2026 17:00–17:30"
    )
    session.refresh_from_db()
    assert (session.room, session.starts_at) == (master, paris(8, 17))


def test_a_refused_move_offers_no_undo_of_an_earlier_move(admin_client, conference, central):
    earlier = make_session(conference, title="Earlier", room=central, starts_at=paris(8, 9))
    post_move(admin_client, earlier, room=central.pk, starts_at="2026-04-08T14:00")
    make_session(conference, title="Compiler Deep Dive", room=central, starts_at=paris(8, 11))
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    response = post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T11:15")
    assert outcome_of(response).startswith(f"Not moved: “{session}”: Central Room already hosts")
    assert "Undo:" not in response.content.decode()
    page = admin_client.get(planner_url(conference, "2026-04-08")).content.decode()
    assert "Undo:" not in page
    admin_client.post(undo_url(conference), headers=HTMX)  # nothing to undo: nothing moves
    earlier.refresh_from_db()
    assert earlier.starts_at == paris(8, 14)


def test_undo_without_a_move_says_there_is_nothing_to_undo(admin_client, conference):
    response = admin_client.post(undo_url(conference))
    assert response.status_code == 302
    assert [str(message) for message in get_messages(response.wsgi_request)] == [
        "There is no move to undo."
    ]


def test_undo_belongs_to_its_organizer(
    admin_client, client, django_user_model, conference, central
):
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T16:00")
    other = django_user_model.objects.create_superuser("other", "other@example.org", "x")
    client.force_login(other)
    client.post(undo_url(conference))
    session.refresh_from_db()
    assert session.starts_at == paris(8, 16)


def test_undo_in_a_second_window_says_there_is_nothing_left_to_undo(
    admin_client, conference, central
):
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T16:00")
    admin_client.post(undo_url(conference), headers=HTMX)
    response = admin_client.post(undo_url(conference), headers=HTMX)  # the other window's button
    assert response.status_code == 200
    assert outcome_of(response) == "There is no move to undo."


# Others' moves: the state a planner polls --------------------------------------------------


def state_url(conference):
    return reverse("admin:schedule_session_planner_state", args=[conference.pk])


def board_etag(admin_client, conference) -> str:
    html = admin_client.get(planner_url(conference, "2026-04-08"), headers=HTMX).content.decode()
    return unescape(re.search(r'data-etag="([^"]+)"', html)[1])


def test_the_state_is_not_modified_while_the_board_is_current(admin_client, conference, central):
    make_session(conference, room=central)
    etag = board_etag(admin_client, conference)
    response = admin_client.get(state_url(conference), headers={"If-None-Match": etag})
    assert response.status_code == 304


def test_the_state_changes_with_a_move_made_elsewhere(admin_client, bea, conference, central):
    session = make_session(conference, room=central)
    etag = board_etag(admin_client, conference)
    post_move(bea, session, room=central.pk, starts_at="2026-04-08T16:00")
    response = admin_client.get(state_url(conference), headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert response["ETag"] != etag
    assert response["ETag"] == board_etag(admin_client, conference)


@pytest.mark.parametrize(
    ("value", "status"),
    # "*" matches whatever version there is: not modified, as any current ETag would be.
    [('"', 200), ("*", 304), ("W/", 200), ("x" * 5_000, 200), ('"a", "b"', 200), ("\x7f", 200)],
)
def test_no_if_none_match_value_breaks_the_state(admin_client, conference, value, status):
    response = admin_client.get(state_url(conference), headers={"If-None-Match": value})
    assert response.status_code == status


def test_the_state_is_for_planners_only(client, conference):
    assert client.get(state_url(conference)).status_code == 302  # to the admin's login


@pytest.mark.parametrize("count", [1, 12])
def test_state_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, conference, central, count
):
    for index in range(count):
        make_session(conference, room=central, starts_at=paris(8, 9 + index))
    with django_assert_max_num_queries(4):
        response = admin_client.get(state_url(conference))
    assert response.status_code == 200


# Without JavaScript -----------------------------------------------------------------------------


def test_move_to_form_offers_rooms_and_the_start_in_the_conference_zone(
    admin_client, conference, central, master
):
    session = make_session(conference, room=central, starts_at=paris(8, 10, 35))
    response = admin_client.get(move_url(session))
    html = response.content.decode()
    assert f'<option value="{central.pk}" selected>Central Room</option>' in html
    assert 'value="2026-04-08T10:35"' in html
    assert "In Europe/Paris." in html
    assert 'name="action" value="unschedule"' in html


def test_move_to_form_redirects_to_the_planner_with_a_message(admin_client, conference, central):
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    response = post_move(
        admin_client, session, headers={}, room=central.pk, starts_at="2026-04-07T11:00"
    )
    assert response.status_code == 302
    assert response["Location"] == planner_url(conference, "2026-04-07")  # the day it went to
    assert [str(message) for message in get_messages(response.wsgi_request)] == [
        f"Moved “{session}” to Central Room, Tuesday 7 April 2026 11:00–11:30 CEST."
    ]
    page = admin_client.get(response["Location"])
    assert f"Undo: put “{session}” back" in page.content.decode()


def test_a_refused_move_to_form_redirects_back_with_the_reason(admin_client, conference, central):
    make_session(conference, title="Taken", room=central, starts_at=paris(8, 11))
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    response = admin_client.post(
        move_url(session) + "?day=2026-04-08",
        {
            "version": session.version,
            "action": "place",
            "room": central.pk,
            "starts_at": "2026-04-08T11:00",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == planner_url(conference, "2026-04-08")
    [message] = get_messages(response.wsgi_request)
    assert message.level_tag == "error"
    assert "Central Room already hosts “Taken” then" in str(message)


def test_undo_without_javascript_redirects_with_a_message(admin_client, conference, central):
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    post_move(admin_client, session, headers={}, room=central.pk, starts_at="2026-04-08T16:00")
    response = admin_client.post(undo_url(conference) + "?day=2026-04-08")
    assert response.status_code == 302
    messages = [str(message) for message in get_messages(response.wsgi_request)]
    assert messages[-1].startswith(f"Undone: “{session}” is back in Central Room")


# Warnings (sessions/warnings.py) --------------------------------------------------------------


def test_warnings_show_on_the_block_and_in_the_list_at_the_top(
    admin_client, conference, central, master
):
    compilers = make_track(conference, name="Compilers")
    make_session(conference, title="First talk", room=central, track=compilers)
    session = make_session(conference, title="Busy talk", room=master, track=compilers)
    html = admin_client.get(planner_url(conference, "2026-04-08")).content.decode()
    message = "Runs in parallel with “First talk”, also in the Compilers track"
    top = html.split('class="planner-warnings"')[1].split("</details>")[0]
    assert "Warnings on this day: 2 sessions" in top  # each runs beside the other
    assert f'<a href="#planner-session-{session.pk}">Busy talk</a>' in top
    assert unescape(message) in unescape(top)
    block = html.split(f'id="planner-session-{session.pk}"')[1].split("</article>")[0]
    assert "has-warnings" in block
    assert unescape(message) in unescape(block)


def status_line(response) -> str:
    """All the status line says, warnings included, as a screen reader reads it."""
    found = re.search(r'<p class="planner-outcome[^"]*"[^>]*>(.*?)</p>', response.content.decode())
    return unescape(re.sub(r"<[^>]+>", "", found[1]))


def test_a_move_outside_a_speakers_availability_is_saved_and_says_so(
    admin_client, conference, central
):
    ada = make_speaker(conference, name="Ada Lovelace")
    Availability.objects.create(speaker=ada, starts_at=paris(8, 9), ends_at=paris(8, 12))
    session = make_session(conference, title="Graphs", room=central, speakers=[ada])
    response = post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T15:00")
    assert status_line(response) == (
        "Moved “Graphs” to Central Room, Wednesday 8 April 2026 15:00–15:30 CEST. "
        "Warning: Ada Lovelace is not available then (available Wed 09:00–12:00 CEST)."
    )
    assert "is-warned" in response.content.decode()
    assert Session.objects.get(pk=session.pk).starts_at == paris(8, 15)


def test_a_move_within_availability_says_no_warning(admin_client, conference, central):
    ada = make_speaker(conference, name="Ada Lovelace")
    Availability.objects.create(speaker=ada, starts_at=paris(8, 9), ends_at=paris(8, 12))
    session = make_session(conference, title="Graphs", room=central, speakers=[ada])
    response = post_move(admin_client, session, room=central.pk, starts_at="2026-04-08T11:00")
    assert status_line(response) == (
        "Moved “Graphs” to Central Room, Wednesday 8 April 2026 11:00–11:30 CEST."
    )


def test_without_javascript_the_warning_comes_with_the_message(admin_client, conference, central):
    ada = make_speaker(conference, name="Ada Lovelace")
    Availability.objects.create(speaker=ada, starts_at=paris(8, 9), ends_at=paris(8, 12))
    session = make_session(conference, title="Graphs", room=central, speakers=[ada])
    response = post_move(
        admin_client, session, headers={}, room=central.pk, starts_at="2026-04-08T15:00"
    )
    [message] = get_messages(response.wsgi_request)
    assert message.level_tag == "warning"
    assert str(message).endswith(
        "15:00–15:30 CEST. Warning: Ada Lovelace is not available then "
        "(available Wed 09:00–12:00 CEST)."
    )


def test_without_warnings_there_is_no_warning_list(admin_client, conference, central):
    make_session(conference, room=central)
    html = admin_client.get(planner_url(conference, "2026-04-08")).content.decode()
    assert "planner-warnings" not in html


# Queries ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [1, 12])
def test_planner_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, conference, central, count
):
    rooms = [central, *(make_room(conference) for _ in range(3))]
    track = make_track(conference)
    for index in range(count):
        speaker = make_speaker(conference)
        make_session(
            conference,
            room=rooms[index % 4],
            track=track,
            starts_at=paris(8, 9) + datetime.timedelta(minutes=30 * (index // 4)),
            speakers=[speaker],
        )
        make_unscheduled_session(conference, speakers=[speaker], track=track)
    with django_assert_max_num_queries(21):  # 15 for the page, 6 for its warnings
        response = admin_client.get(planner_url(conference, "2026-04-08"))
    assert sum(len(column.sessions) for column in response.context["planner"].columns) == count
    assert len(response.context["unscheduled"]) == count


@pytest.mark.parametrize("count", [1, 12])
def test_move_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, conference, central, count
):
    for index in range(count):
        make_session(
            conference, room=central, starts_at=paris(8, 9) + datetime.timedelta(hours=index * 0.5)
        )
    speakers = [make_speaker(conference) for _ in range(2)]
    session = make_session(conference, room=make_room(conference), speakers=speakers)
    # 34 for the move, 6 for its warnings, 2 for the API's sync (its speakers marked changed), 1
    # for the webhooks' outbox row, and 1 for the history entry's content type when no test
    # before has looked it up.
    with django_assert_max_num_queries(44):
        response = post_move(
            admin_client, session, room=session.room_id, starts_at="2026-04-08T17:00"
        )
    assert response["HX-Trigger"] == "planner-moved"


# Bad input, one field at a time ------------------------------------------------------------------

HOSTILE_VALUES = [
    "",
    "not-a-date",
    "2026-02-30T10:00",
    "-1",
    "99999999999999999999999",
    "1e309",
    "NaN",
    "🦄' OR 1=1 --" + "x" * 5_000,
    "\x00",
]


@pytest.mark.parametrize("field", ["version", "action", "room", "starts_at"])
@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=lambda value: repr(value[:12]))
@pytest.mark.parametrize(("headers", "refusal"), [(HTMX, 200), ({}, 302)], ids=["htmx", "plain"])
def test_no_posted_value_breaks_a_move_or_saves_it(
    admin_client, conference, central, field, value, headers, refusal
):
    session = make_session(conference, room=central)
    fields = {"room": central.pk, "starts_at": "2026-04-08T11:00", field: value}
    response = post_move(admin_client, session, headers=headers, **fields)
    # Refused as any move is ("Not moved: ..." in the board's status, or a message on the
    # planner it redirects to); NUL is refused with a 400 before any view.
    assert response.status_code == (400 if value == "\x00" else refusal)
    assert Session.objects.get(pk=session.pk).version == session.version


@pytest.mark.parametrize("name", ["day", "q", "track", "kind"])
@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=lambda value: repr(value[:12]))
def test_no_query_value_breaks_the_planner(admin_client, conference, central, name, value):
    make_session(conference, room=central)
    make_unscheduled_session(conference)
    response = admin_client.get(planner_url(conference), {name: value})
    assert response.status_code == (400 if value == "\x00" else 200)  # NUL: before any view


def test_putting_a_session_down_where_it_was_keeps_the_undo_of_the_last_real_move(
    admin_client, conference, central, master
):
    session = make_session(conference, room=central, starts_at=paris(8, 10))
    post_move(admin_client, session, room=master.pk, starts_at="2026-04-08T16:00")
    session.refresh_from_db()
    response = post_move(admin_client, session, room=master.pk, starts_at="2026-04-08T16:00")
    assert outcome_of(response).startswith(f"“{session}” stays in Master Stage")
    admin_client.post(undo_url(conference), headers=HTMX)
    session.refresh_from_db()
    assert (session.room, session.starts_at) == (central, paris(8, 10))
