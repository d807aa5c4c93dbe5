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


def test_lines_under_a_short_title_become_a_list():
    html = render_markdown("Key takeaways\nWhy it matters\nWhat breaks")
    assert (
        html == "<p>Key takeaways</p>\n<ul>\n<li>Why it matters</li>\n<li>What breaks</li>\n</ul>"
    )


def test_lines_after_a_line_ending_with_a_colon_become_a_list():
    html = render_markdown("We start there.\nWe'll cover:\nProtobuf: smaller.\nStreaming: longer.")
    assert html == (
        "<p>We start there.<br>\nWe'll cover:</p>\n"
        "<ul>\n<li>Protobuf: smaller.</li>\n<li>Streaming: longer.</li>\n</ul>"
    )


def test_sentences_under_a_short_title_stay_lines():
    html = render_markdown("Abstract\nThis talk shows X.\nWe measure Y.")
    assert html == "<p>Abstract<br>\nThis talk shows X.<br>\nWe measure Y.</p>"


def test_a_single_line_after_a_colon_stays_a_line():
    html = render_markdown("Bring:\na laptop")
    assert html == "<p>Bring:<br>\na laptop</p>"


@pytest.mark.django_db
def test_demo_session_page_shows_its_key_takeaways_as_a_list(client):
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    session = Session.objects.get(
        slug="live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"
    )
    html = client.get(session.get_absolute_url()).content.decode()
    assert (
        "<p>Key takeaways</p>\n<ul>\n"
        "<li>Why PyTorch workloads on hyperscalers raise sovereignty concerns for EU teams</li>\n"
        "<li>What actually breaks (and what doesn’t) when migrating GPU-based ML nodes</li>\n"
        "<li>How to regain control over ML infrastructure without rewriting your stack</li>\n</ul>"
    ) in html


@pytest.mark.django_db
def test_demo_session_page_shows_its_bullets_as_a_list(client):
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    session = Session.objects.get(slug__startswith="seamless-integration-custom-kernels")
    html = client.get(session.get_absolute_url()).content.decode()
    assert "<p>What you will learn:</p>\n<ul>\n<li>Identifying the Friction:" in html
    assert "•" not in html
