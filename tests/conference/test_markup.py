import pytest
from django.core.management import call_command

from conference.markup import render_markdown
from sessions.models import Session


def test_bullet_characters_after_a_paragraph_line_become_a_list():
    html = render_markdown("What you will learn:\n• Profiling\n• Registration\n\nWho should join")
    assert html == (
        "<p>What you will learn:</p>\n<ul>\n<li>Profiling</li>\n<li>Registration</li>\n</ul>\n"
        "<p>Who should join</p>"
    )


def test_markdown_dashes_after_a_paragraph_line_become_a_list():
    html = render_markdown("Agenda:\n- Intro\n- Demo")
    assert html == "<p>Agenda:</p>\n<ul>\n<li>Intro</li>\n<li>Demo</li>\n</ul>"


def test_a_numbered_list_after_a_paragraph_line_stays_numbered():
    html = render_markdown("Steps:\n1. Install\n2. Run")
    assert html == "<p>Steps:</p>\n<ol>\n<li>Install</li>\n<li>Run</li>\n</ol>"


def test_a_line_continuing_a_list_item_keeps_the_list_whole():
    html = render_markdown("- Intro\nthat goes on\n- Demo")
    assert html == "<ul>\n<li>Intro<br>\nthat goes on</li>\n<li>Demo</li>\n</ul>"


def test_dashes_and_stars_inside_a_line_stay_text():
    html = render_markdown("hand-written kernels - a growing gap\n*tensors* everywhere")
    assert html == "<p>hand-written kernels - a growing gap<br>\n<em>tensors</em> everywhere</p>"


def test_a_number_opening_a_line_inside_a_paragraph_stays_text():
    html = render_markdown("We trained on\n2000. GPUs, then more")
    assert html == "<p>We trained on<br>\n2000. GPUs, then more</p>"


@pytest.mark.django_db
def test_demo_session_page_shows_its_bullets_as_a_list(client):
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    session = Session.objects.get(slug__startswith="seamless-integration-custom-kernels")
    html = client.get(session.get_absolute_url()).content.decode()
    assert "<p>What you will learn:</p>\n<ul>\n<li>Identifying the Friction:" in html
    assert "•" not in html
