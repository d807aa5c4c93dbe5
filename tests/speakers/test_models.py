import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from speakers.models import Availability, Speaker
from tests.builders import make_conference, make_speaker, paris

pytestmark = pytest.mark.django_db


def available(speaker, *windows):
    for starts_at, ends_at in windows:
        Availability.objects.create(speaker=speaker, starts_at=starts_at, ends_at=ends_at)
    return speaker


def test_a_speaker_without_windows_is_available_at_any_time(speaker):
    assert speaker.is_available(paris(7, 8), paris(8, 23)) is True


def test_a_speaker_is_available_for_a_time_inside_a_window(speaker):
    available(speaker, (paris(8, 10), paris(8, 12)))
    assert speaker.is_available(paris(8, 10), paris(8, 12)) is True


def test_a_speaker_is_not_available_for_a_time_reaching_past_a_window(speaker):
    available(speaker, (paris(8, 10), paris(8, 12)))
    assert speaker.is_available(paris(8, 11, 30), paris(8, 12, 30)) is False


def test_a_speaker_is_not_available_outside_every_window(speaker):
    available(speaker, (paris(7, 10), paris(7, 12)), (paris(8, 14), paris(8, 16)))
    assert speaker.is_available(paris(8, 10), paris(8, 10, 30)) is False


def test_touching_windows_count_as_one(speaker):
    available(speaker, (paris(8, 12), paris(8, 14)), (paris(8, 10), paris(8, 12)))
    assert speaker.is_available(paris(8, 11, 30), paris(8, 12, 30)) is True


def test_a_gap_between_windows_breaks_availability(speaker):
    available(speaker, (paris(8, 10), paris(8, 12)), (paris(8, 12, 5), paris(8, 14)))
    assert speaker.is_available(paris(8, 11, 30), paris(8, 12, 30)) is False


def test_is_available_reads_prefetched_windows_without_a_query(speaker, django_assert_num_queries):
    available(speaker, (paris(8, 10), paris(8, 12)))
    loaded = Speaker.objects.prefetch_related("availability").get(pk=speaker.pk)
    with django_assert_num_queries(0):
        assert loaded.is_available(paris(8, 10), paris(8, 11)) is True


def test_the_database_refuses_a_window_ending_before_it_starts(speaker):
    with pytest.raises(IntegrityError):
        Availability.objects.create(speaker=speaker, starts_at=paris(8, 12), ends_at=paris(8, 10))


def test_clean_says_a_window_must_end_after_it_starts(speaker):
    window = Availability(speaker=speaker, starts_at=paris(8, 12), ends_at=paris(8, 12))
    with pytest.raises(ValidationError) as error:
        window.full_clean()
    assert error.value.message_dict == {
        "ends_at": ["An availability window must end after it starts."]
    }


def test_clean_refuses_a_window_outside_the_conference_days():
    speaker = make_speaker(make_conference(name="PyCon"))
    window = Availability(speaker=speaker, starts_at=paris(9, 10), ends_at=paris(9, 12))
    with pytest.raises(ValidationError) as error:
        window.full_clean()
    assert error.value.message_dict == {
        "starts_at": [
            "PyCon runs from Tuesday 7 April 2026 to Wednesday 8 April 2026 (Europe/Paris); "
            "an availability window must lie within those days."
        ]
    }


def test_clean_checks_a_window_of_a_speaker_not_saved_yet():
    speaker = Speaker(conference=make_conference(), name="New")
    window = Availability(speaker=speaker, starts_at=paris(6, 10), ends_at=paris(6, 12))
    with pytest.raises(ValidationError) as error:
        window.full_clean(exclude=["speaker"])
    assert list(error.value.message_dict) == ["starts_at"]


def test_a_window_reads_in_the_conference_zone():
    speaker = make_speaker(make_conference(time_zone="America/New_York"))
    window = available(speaker, (paris(8, 16), paris(8, 18))).availability.get()
    assert window.local_times == "Wed 10:00–12:00 EDT"


def test_a_speakers_displayed_values_list_their_windows(speaker):
    available(speaker, (paris(8, 14), paris(8, 16)), (paris(7, 10), paris(7, 12)))
    assert speaker.displayed_values()["availability"] == (
        "Tue 10:00–12:00 CEST; Wed 14:00–16:00 CEST"
    )
