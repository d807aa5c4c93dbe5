import datetime

import pytest

from conference.models import Conference
from speakers.models import Availability, SpeakerLink
from tests.builders import make_conference, make_speaker, paris

pytestmark = pytest.mark.django_db

LONG_AGO = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture
def speaker():
    """A speaker, beside a bystander conference; both conferences changed long ago."""
    speaker = make_speaker()
    make_conference()  # a bystander, whose changed_at must not move
    Conference.objects.update(changed_at=LONG_AGO)
    return speaker


def changed_conferences():
    return list(Conference.objects.filter(changed_at__gt=LONG_AGO))


def test_saving_a_speaker_moves_their_conference_changed_at(speaker):
    speaker.save()
    assert changed_conferences() == [speaker.conference]


def test_deleting_a_speaker_moves_their_conference_changed_at(speaker):
    speaker.delete()
    assert changed_conferences() == [speaker.conference]


def test_adding_and_removing_a_link_moves_the_conference_changed_at(speaker):
    link = SpeakerLink.objects.create(speaker=speaker, title="Website", url="https://example.org")
    assert changed_conferences() == [speaker.conference]

    Conference.objects.update(changed_at=LONG_AGO)
    link.delete()
    assert changed_conferences() == [speaker.conference]


def test_adding_and_removing_availability_moves_the_conference_changed_at(speaker):
    window = Availability.objects.create(
        speaker=speaker, starts_at=paris(8, 10), ends_at=paris(8, 12)
    )
    assert changed_conferences() == [speaker.conference]

    Conference.objects.update(changed_at=LONG_AGO)
    window.delete()
    assert changed_conferences() == [speaker.conference]
