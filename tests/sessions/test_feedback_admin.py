import csv
import datetime
import io

import pytest
from django.urls import reverse

from sessions.admin.feedback import csv_cell
from sessions.models.feedback import Feedback
from tests.builders import make_conference, make_session, make_track, paris

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:schedule_feedback_changelist"
SUMMARY = "admin:schedule_feedback_summary"


@pytest.fixture
def attendees(django_user_model):
    return [django_user_model.objects.create_user(f"attendee{n}") for n in range(3)]


def rate(session, user, rating, comment="", **fields):
    return Feedback.objects.create(
        session=session, user=user, rating=rating, comment=comment, **fields
    )


def rated_sessions(conference, users, count):
    """``count`` sessions in two tracks, each rated by every one of ``users``."""
    tracks = [make_track(conference, name="ML"), make_track(conference, name="Web")]
    for number in range(count):
        session = make_session(
            conference,
            track=tracks[number % 2],
            starts_at=paris(8, 9) + datetime.timedelta(minutes=30 * number),
        )
        for offset, user in enumerate(users):
            rate(session, user, 1 + (number + offset) % 5, comment=f"Comment {number}")


@pytest.mark.parametrize("count", [1, 12])
def test_feedback_changelist_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, conference, attendees, count
):
    rated_sessions(conference, attendees, count)
    with django_assert_max_num_queries(12):
        response = admin_client.get(reverse(CHANGELIST))
    assert response.status_code == 200
    assert response.context["cl"].result_count == count * len(attendees)


@pytest.mark.parametrize("count", [1, 12])
def test_feedback_summary_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, conference, attendees, count
):
    rated_sessions(conference, attendees, count)
    with django_assert_max_num_queries(6):
        response = admin_client.get(reverse(SUMMARY), {"conference": conference.pk})
    assert response.status_code == 200
    [summary] = response.context["summaries"]
    assert len(summary.sessions) == count
    assert summary.overall.count == count * len(attendees)


def test_the_summary_shows_averages_per_session_track_and_conference(
    admin_client, conference, attendees
):
    ml = make_track(conference, name="ML")
    graphs = make_session(conference, title="Graphs", track=ml)
    for user, rating in zip(attendees, [5, 4, 2], strict=True):
        rate(graphs, user, rating)
    html = admin_client.get(reverse(SUMMARY)).content.decode()
    assert "PyCon: 3.67 of 5 from 3 ratings" in html
    assert '<th scope="row">ML</th><td>3.67</td><td>3</td>' in html
    assert f"?session__id__exact={graphs.pk}" in html
    response = admin_client.get(reverse(CHANGELIST), {"session__id__exact": graphs.pk})
    assert response.context["cl"].result_count == 3


def test_the_summary_is_for_staff_only(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("attendee"))
    response = client.get(reverse(SUMMARY))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_the_changelist_filters_by_conference_and_track(admin_client, conference, attendees):
    ml, web = make_track(conference, name="ML"), make_track(conference, name="Web")
    rate(make_session(conference, title="A", track=ml), attendees[0], 5)
    rate(make_session(conference, title="B", track=web), attendees[0], 3)
    rate(make_session(make_conference(), title="C"), attendees[0], 1)
    by_conference = admin_client.get(
        reverse(CHANGELIST), {"session__conference__id__exact": conference.pk}
    )
    by_track = admin_client.get(reverse(CHANGELIST), {"session__track__id__exact": web.pk})
    assert sorted(f.session.title for f in by_conference.context["cl"].result_list) == ["A", "B"]
    assert [f.session.title for f in by_track.context["cl"].result_list] == ["B"]


def test_organizers_hide_and_show_comments_with_actions(admin_client, conference, attendees):
    session = make_session(conference)
    rude = rate(session, attendees[0], 1, comment="Rude.")
    kind = rate(session, attendees[1], 5, comment="Kind.")
    admin_client.post(
        reverse(CHANGELIST), {"action": "hide_comments", "_selected_action": [rude.pk, kind.pk]}
    )
    assert list(Feedback.objects.order_by("pk").values_list("hidden", flat=True)) == [True, True]
    admin_client.post(
        reverse(CHANGELIST), {"action": "show_comments", "_selected_action": [kind.pk]}
    )
    assert list(Feedback.objects.order_by("pk").values_list("hidden", flat=True)) == [True, False]


def test_an_organizer_can_hide_a_comment_in_its_form_after_the_window(
    admin_client, clock, conference, attendees
):
    feedback = rate(make_session(conference), attendees[0], 1, comment="Rude.")
    clock(paris(30, 12))
    url = reverse("admin:schedule_feedback_change", args=[feedback.pk])
    response = admin_client.post(url, {"hidden": "on"})
    assert response.status_code == 302
    feedback.refresh_from_db()
    assert (feedback.hidden, feedback.rating, feedback.comment) == (True, 1, "Rude.")


def test_organizers_cannot_add_feedback_in_the_admin(admin_client):
    assert admin_client.get(reverse("admin:schedule_feedback_add")).status_code == 403


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=HYPERLINK(1)", "'=HYPERLINK(1)"),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTab", "'\tTab"),
        ("\rReturn", "'\rReturn"),
        ("Fine = good", "Fine = good"),
        (4, "4"),
        (None, ""),
    ],
)
def test_csv_cells_that_would_start_a_formula_are_neutralised(value, cell):
    assert csv_cell(value) == cell


def test_the_csv_export_neutralises_formulas_and_names_no_author(
    admin_client, conference, attendees
):
    session = make_session(conference, title="=cmd|' /C calc'!A0", starts_at=paris(8, 10))
    rate(session, attendees[0], 2, comment="@SUM(1+1)*cmd")
    rate(session, attendees[1], 5, comment="Great\nsecond line", hidden=True)
    response = admin_client.post(
        reverse(CHANGELIST),
        {
            "action": "export_csv",
            "_selected_action": list(Feedback.objects.values_list("pk", flat=True)),
        },
    )
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="feedback.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "conference",
        "session",
        "track",
        "starts",
        "rating",
        "comment",
        "hidden",
        "created",
        "updated",
    ]
    assert sorted(row[1:7] for row in rows[1:]) == [
        ["'=cmd|' /C calc'!A0", "", "2026-04-08T10:00:00+02:00", "2", "'@SUM(1+1)*cmd", "no"],
        ["'=cmd|' /C calc'!A0", "", "2026-04-08T10:00:00+02:00", "5", "Great\nsecond line", "yes"],
    ]
    assert "attendee" not in response.content.decode()
