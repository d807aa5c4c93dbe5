import pytest
from django.urls import NoReverseMatch, reverse

from conference.site.jinja2 import url


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("conference-list", {}),
        ("sessions:schedule", {"conference_slug": "pycon-2026"}),
        ("sessions:session-detail", {"conference_slug": "pycon", "slug": "live_migration-2"}),
        # Not slugs: reverse() quotes them.
        ("password_reset_confirm", {"uidb64": "MQ", "token": "a b~c"}),
        # An int route given digits: no placeholder fits it, so reverse() answers.
        ("sessions:attachment-download", {"conference_slug": "pycon", "slug": "talk", "pk": "7"}),
    ],
)
def test_url_is_what_reverse_gives(name, kwargs):
    assert url(name, **kwargs) == reverse(name, kwargs=kwargs or None)


def test_url_takes_positional_arguments_and_refuses_what_reverse_refuses():
    assert url("sessions:schedule", "pycon") == reverse("sessions:schedule", args=["pycon"])
    with pytest.raises(NoReverseMatch):
        url("sessions:attachment-download", conference_slug="pycon", slug="talk", pk="seven")
