import pytest
from django.core.exceptions import ValidationError

from conference.models import Room, Track
from conference.versioning import (
    MINE,
    THEIRS,
    EditConflictError,
    FieldChange,
    MergeChoice,
    MergePlan,
    Overlap,
    choose_kept,
    three_way_merge,
)
from sessions.models import Session
from speakers.models import Speaker
from tests.builders import make_room, make_session, make_speaker, make_track, paris

pytestmark = pytest.mark.django_db

MAKERS = {Room: make_room, Track: make_track, Session: make_session, Speaker: make_speaker}


@pytest.fixture(params=list(MAKERS), ids=lambda model: model.__name__)
def row(request):
    return MAKERS[request.param]()


def loaded(row):
    return type(row).objects.get(pk=row.pk)


def test_every_save_moves_the_version_on_by_one(row):
    first = loaded(row)
    first.save()
    first.save()
    assert loaded(row).version == 3


def test_a_save_from_a_stale_copy_is_refused_and_writes_nothing(row):
    mine, theirs = loaded(row), loaded(row)
    theirs.slug = "theirs"
    theirs.save()
    mine.slug = "mine"
    with pytest.raises(EditConflictError) as refused:
        mine.save()
    assert (refused.value.seen_version, refused.value.current_version) == (1, 2)
    assert (loaded(row).slug, loaded(row).version, mine.version) == ("theirs", 2, 1)


def test_a_bulk_update_moves_the_version_on(row):
    type(row).objects.filter(pk=row.pk).update(slug="bulk")
    assert loaded(row).version == 2


def test_a_bulk_update_of_many_fields_moves_the_version_on(row):
    copy = loaded(row)
    copy.slug = "bulk"
    type(row).objects.bulk_update([copy], ["slug"])
    assert loaded(row).version == 2


def test_a_delete_from_a_stale_copy_is_refused(row):
    stale = loaded(row)
    loaded(row).save()
    with pytest.raises(EditConflictError):
        stale.delete()
    assert type(row).objects.filter(pk=row.pk).exists()


def test_saving_a_row_deleted_meanwhile_is_refused_rather_than_bringing_it_back(row):
    stale = loaded(row)
    loaded(row).delete()
    with pytest.raises(EditConflictError) as refused:
        stale.save()
    assert refused.value.current_version is None
    assert not type(row).objects.filter(pk=row.pk).exists()


def test_check_version_refuses_a_version_the_row_has_left(row):
    loaded(row).save()
    with pytest.raises(ValidationError) as refused:
        loaded(row).check_version(1)
    assert refused.value.messages == [
        f"Someone else saved this {row._meta.verbose_name} after the version this change is "
        "based on (version 1; it is now at version 2)."
    ]


def test_check_version_of_the_current_version_lets_the_save_through(row):
    loaded(row).save()
    current = loaded(row)
    current.check_version(2)
    current.save()
    assert loaded(row).version == 3


def test_a_status_change_of_selected_sessions_moves_their_versions():
    session = make_session()
    Session.objects.filter(pk=session.pk).cancel()
    assert Session.objects.get(pk=session.pk).version == 2


def test_changes_since_names_each_changed_field_as_an_organizer_reads_it():
    session = make_session(title="Old", starts_at=paris(8, 10), speakers=[make_speaker()])
    opened = loaded(session).displayed_values()
    Session.objects.filter(pk=session.pk).update(
        title="New", starts_at=paris(8, 9), status=Session.Status.CANCELLED
    )
    assert loaded(session).changes_since(opened) == [
        FieldChange("Title", "Old", "New"),
        FieldChange("Starts", "Wed 8 Apr 2026 10:00 CEST", "Wed 8 Apr 2026 09:00 CEST"),
        FieldChange("Status", "Published", "Cancelled"),
    ]


def test_a_browsers_line_endings_are_not_reported_as_a_change():
    """A textarea posts its lines ending in \\r\\n: another organizer's save of the same text."""
    session = make_session(description="First line.\nSecond line.")
    opened = loaded(session).displayed_values()
    Session.objects.filter(pk=session.pk).update(description="First line.\r\nSecond line.")
    assert loaded(session).changes_since(opened) == []


def test_three_way_merge_keeps_a_field_only_the_other_writer_changed():
    session = make_session(title="Old", description="Old text.")
    opened = loaded(session).displayed_values()
    Session.objects.filter(pk=session.pk).update(title="Theirs")
    plan = three_way_merge(loaded(session), opened, {"title": "Old", "description": "Mine."})
    assert (plan.kept, plan.overlaps, plan.undone) == (
        {"title"},
        [],
        [FieldChange("Title", "Old", "Theirs")],
    )


def test_three_way_merge_names_both_values_of_a_field_both_changed_differently():
    session = make_session(title="Old")
    opened = loaded(session).displayed_values()
    Session.objects.filter(pk=session.pk).update(title="Theirs")
    plan = three_way_merge(loaded(session), opened, {"title": "Mine"})
    assert (plan.kept, plan.overlaps) == (
        set(),
        [Overlap("title", "Title", "Old", "Theirs", "Mine")],
    )


def test_three_way_merge_takes_a_change_both_made_alike():
    session = make_session(title="Old")
    opened = loaded(session).displayed_values()
    Session.objects.filter(pk=session.pk).update(title="Same")
    plan = three_way_merge(loaded(session), opened, {"title": "Same"})
    assert (plan.kept, plan.overlaps, plan.undone) == (set(), [], [])


def test_three_way_merge_does_not_merge_a_change_the_organizers_values_cannot_tell():
    session = make_session(title="Old", speakers=[make_speaker()])
    opened = loaded(session).displayed_values()
    Session.objects.filter(pk=session.pk).update(title="Theirs")
    plan = three_way_merge(loaded(session), opened, {"description": ""})
    assert plan.unmerged == ["title"]


def test_three_way_merge_does_not_merge_a_field_the_loaded_values_leave_out():
    session = make_session(title="Old")
    opened = loaded(session).displayed_values()
    del opened["title"]
    Session.objects.filter(pk=session.pk).update(title="Theirs")
    plan = three_way_merge(loaded(session), opened, {"title": "Old"})
    assert (plan.unmerged, plan.kept) == (["title"], set())


TITLE_OVERLAP = Overlap("title", "Title", "Old", "Theirs", "Mine")


def test_choose_kept_keeps_theirs_where_only_they_changed_and_where_the_organizer_chose_theirs():
    plan = MergePlan(kept={"room"}, overlaps=[TITLE_OVERLAP])
    assert choose_kept(plan, {"title": THEIRS}) == MergeChoice(
        theirs={"room", "title"}, mine=set(), unresolved=[]
    )


def test_choose_kept_takes_the_organizers_value_where_they_chose_mine():
    plan = MergePlan(kept={"room"}, overlaps=[TITLE_OVERLAP])
    assert choose_kept(plan, {"title": MINE}) == MergeChoice(
        theirs={"room"}, mine={"title"}, unresolved=[]
    )


@pytest.mark.parametrize("choices", [{}, {"title": None}, {"title": "both"}])
def test_choose_kept_leaves_an_overlap_without_a_valid_answer_unresolved(choices):
    plan = MergePlan(overlaps=[TITLE_OVERLAP])
    assert choose_kept(plan, choices) == MergeChoice(
        theirs=set(), mine=set(), unresolved=[TITLE_OVERLAP]
    )


def test_choose_kept_ignores_answers_for_fields_that_are_not_overlaps():
    """A posted keep_<field> for a field only they changed cannot undo their change."""
    plan = MergePlan(kept={"room"})
    assert choose_kept(plan, {"room": MINE, "title": MINE}) == MergeChoice(
        theirs={"room"}, mine=set(), unresolved=[]
    )
