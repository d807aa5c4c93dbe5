import datetime

import pytest

from conference.models import Conference
from sessions.models import Attachment, SessionSpeaker
from tests.builders import make_conference, make_session, make_speaker

pytestmark = pytest.mark.django_db

LONG_AGO = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture
def session():
    session = make_session()
    make_conference()  # a bystander, whose changed_at must not move
    Conference.objects.update(changed_at=LONG_AGO)
    return session


def changed_conferences():
    return list(Conference.objects.filter(changed_at__gt=LONG_AGO))


def test_saving_a_session_moves_its_conference_changed_at(session):
    session.save()
    assert changed_conferences() == [session.conference]


def test_deleting_a_session_moves_its_conference_changed_at(session):
    session.delete()
    assert changed_conferences() == [session.conference]


def test_adding_and_removing_a_speaker_moves_the_conference_changed_at(session):
    speaker = make_speaker(session.conference)
    Conference.objects.update(changed_at=LONG_AGO)
    link = SessionSpeaker.objects.create(session=session, speaker=speaker)
    assert changed_conferences() == [session.conference]

    Conference.objects.update(changed_at=LONG_AGO)
    link.delete()
    assert changed_conferences() == [session.conference]


def test_adding_and_removing_an_attachment_moves_the_conference_changed_at(session):
    attachment = Attachment.objects.create(
        session=session, title="Slides", url="https://example.org/slides.pdf"
    )
    assert changed_conferences() == [session.conference]

    Conference.objects.update(changed_at=LONG_AGO)
    attachment.delete()
    assert changed_conferences() == [session.conference]
