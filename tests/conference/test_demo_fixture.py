"""The demo fixture transcribes the Sched page of PyTorch Conference Europe 2026 exactly.

Every expected value below is copied by hand from the saved page, not re-parsed from it.
Characters that look like ASCII but are not (the page's non-breaking hyphens U+2011 and
curly apostrophes U+2019) are written as escapes so they stay visible.
"""

import datetime

import pytest
from django.core.management import call_command

from conference.models import Conference, Room, Track
from sessions.models import Attachment, Session, SessionSpeaker
from speakers.models import Speaker

APRIL_8 = datetime.date(2026, 4, 8)


@pytest.fixture
def demo():
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    return Conference.objects.get(slug="pytorch-eu-2026")


def local_slot(session: Session) -> str:
    return f"{session.local_starts_at:%H:%M}-{session.local_ends_at:%H:%M}"


def contrast_with_white(colour: str) -> float:
    def channel(hex_pair: str) -> float:
        value = int(hex_pair, 16) / 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(colour[i : i + 2]) for i in (1, 3, 5))
    luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return 1.05 / (luminance + 0.05)


@pytest.mark.django_db
def test_demo_fixture_describes_the_conference(demo):
    assert demo.name == "PyTorch Conference Europe 2026"
    assert (demo.starts_on, demo.ends_on) == (datetime.date(2026, 4, 7), APRIL_8)
    assert demo.time_zone == "Europe/Paris"
    assert (demo.city, demo.venue) == ("Paris", "")
    assert (demo.registration_url, demo.help_url, demo.contact_email) == ("", "", "")
    assert demo.is_published is True
    assert demo.description == (
        "Note: The schedule is subject to change.\n\n"
        "The Sched app allows you to build your schedule but is not a substitute for your event registration. "
        "You must be registered for PyTorch Conference Europe 2026 to participate in the sessions. "
        "If you have not registered but would like to join us, please go to the event registration page "
        "to purchase a registration."
    )


@pytest.mark.django_db
def test_demo_fixture_has_every_seed_session(demo):
    assert demo.sessions.count() == 29
    assert set(demo.sessions.values_list("status", flat=True)) == {"published"}


@pytest.mark.django_db
def test_demo_fixture_sessions_all_fall_on_8_april_2026_in_paris(demo):
    days = {
        (session.local_starts_at.date(), session.local_ends_at.date())
        for session in demo.sessions.all()
    }
    assert days == {(APRIL_8, APRIL_8)}
    assert {session.local_starts_at.tzname() for session in demo.sessions.all()} == {"CEST"}


@pytest.mark.django_db
def test_demo_fixture_has_the_seed_rooms_with_master_stage_first(demo):
    rooms = Room.objects.filter(conference=demo).order_by("position")
    assert [(room.name, room.slug) for room in rooms] == [
        ("Master Stage", "master-stage"),
        ("Central Room", "central-room"),
        ("Junior Stage", "junior-stage"),
        ("Founders Cafe", "founders-cafe"),
    ]
    assert {room.capacity for room in rooms} == {None}


@pytest.mark.django_db
def test_demo_fixture_has_every_seed_track(demo):
    names = Track.objects.filter(conference=demo).values_list("name", flat=True)
    assert sorted(names) == [
        "Agents & Interop",
        "Applications & Case Studies",
        "Frameworks & Compilers",
        "GenAI & Multimodal",
        "Inference & Production",
        "Responsible AI & Compliance",
        "Security & Privacy",
        "Training Systems",
    ]


@pytest.mark.django_db
def test_demo_fixture_track_colours_are_distinct_and_readable_on_white(demo):
    colours = list(Track.objects.filter(conference=demo).values_list("colour", flat=True))
    assert len(set(colours)) == 8
    assert [colour for colour in colours if contrast_with_white(colour) < 4.5] == []


@pytest.mark.django_db
def test_demo_fixture_has_one_record_per_distinct_speaker(demo):
    assert Speaker.objects.filter(conference=demo).count() == 43
    assert SessionSpeaker.objects.filter(session__conference=demo).count() == 45


@pytest.mark.django_db
def test_demo_fixture_marks_nine_sessions_as_talks_and_the_rest_as_lightning_talks(
    demo,
):
    talks = demo.sessions.filter(kind=Session.Kind.TALK).values_list("title", flat=True)
    assert sorted(talks) == [
        "Accelerating Complex-Valued Tensors With Torch.compile",
        "Beyond JSON-RPC: Scaling Model Context Protocols With gRPC in the PyTorch Ecosystem",
        "Bridging the Hardware Gap With Code Harnesses on the Hugging Face Kernels Hub",
        "De-mystifying PyTorch for ASICs: When (and Why) To Move Your Development To AI Accelerators",
        "From Gradients To Governance: Making PyTorch Lineage-Aware",
        "From Responses To Trajectories: Multi-Turn and Multi-Environment Reinforcement Learning",
        "Optimizing CPU LLM Inference in PyTorch: Lessons From VLLM",
        "Portable High\u2011Performance LLM Serving: A Triton Backend for VLLM",
        "Seamless Integration: Custom Kernels in the Torch.compile Stack Without Graphbreaks",
    ]
    assert demo.sessions.filter(kind=Session.Kind.LIGHTNING_TALK).count() == 20


@pytest.mark.django_db
def test_demo_fixture_transcribes_the_live_migration_lightning_talk(demo):
    session = demo.sessions.get(
        title="Live Migration of PyTorch GPU Nodes From Azure To European Clouds"
    )
    assert session.slug == "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"
    assert session.kind == "lightning-talk"
    assert local_slot(session) == "10:35-10:45"
    assert (session.room.name, session.track.name) == (
        "Central Room",
        "Security & Privacy",
    )
    assert session.audience_level == "intermediate"
    assert [speaker.name for speaker in session.ordered_speakers] == ["Mike Krom"]


@pytest.mark.django_db
def test_demo_fixture_keeps_session_description_text_and_line_breaks(demo):
    session = demo.sessions.get(
        slug="live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"
    )
    assert session.description == (
        "Many European PyTorch teams run their GPU workloads on hyperscalers like Azure, AWS, or GCP—often "
        "without realizing that this places their data and models under US jurisdiction.\n\n"
        "This lightning talk shows how PyTorch compute nodes can be migrated to European cloud providers while "
        "keeping the full ML environment intact. Through a live demo, we migrate a GPU-enabled PyTorch "
        "VM—including CUDA drivers and Jupyter notebooks—from Azure to European infrastructure, without "
        "retraining models or rebuilding environments.\n\n"
        "The focus is on practical challenges: GPU compatibility, reproducibility, and data movement across "
        "clouds.\n\n"
        "The migration is demonstrated using DigitalNomadSky, an open-source Python platform for cross-cloud VM "
        "migration, but the lessons apply broadly to PyTorch teams aiming to reduce jurisdictional risk and "
        "vendor lock-in.\n\n"
        "Key takeaways\n"
        "Why PyTorch workloads on hyperscalers raise sovereignty concerns for EU teams\n"
        "What actually breaks (and what doesn\u2019t) when migrating GPU-based ML nodes\n"
        "How to regain control over ML infrastructure without rewriting your stack"
    )


@pytest.mark.django_db
def test_demo_fixture_lists_three_speakers_in_billing_order(demo):
    session = demo.sessions.get(
        title="Seamless Integration: Custom Kernels in the Torch.compile Stack Without Graphbreaks"
    )
    assert session.kind == "talk"
    assert local_slot(session) == "14:30-14:55"
    assert (session.room.name, session.track.name) == (
        "Master Stage",
        "Frameworks & Compilers",
    )
    assert [speaker.name for speaker in session.ordered_speakers] == [
        "Kshiteej Kalambarkar",
        "Masaki Kozuki",
        "Pawel Gadzinski",
    ]


@pytest.mark.django_db
def test_demo_fixture_orders_speakers_by_byline_not_by_speakers_block(demo):
    session = demo.sessions.get(
        title="Portable High\u2011Performance LLM Serving: A Triton Backend for VLLM"
    )
    assert [speaker.name for speaker in session.ordered_speakers] == [
        "Burkhard Ringlein",
        "Jan van Lunteren",
    ]


@pytest.mark.django_db
def test_demo_fixture_keeps_dashes_that_belong_to_the_title(demo):
    session = demo.sessions.get(slug="trinity-large-torchtitan-on-2000-b300s")
    assert session.title == "Trinity Large - Torchtitan on 2000+ B300s"
    assert session.kind == "lightning-talk"
    assert local_slot(session) == "15:25-15:35"
    assert (session.room.name, session.track.name) == (
        "Founders Cafe",
        "Training Systems",
    )
    assert [speaker.name for speaker in session.ordered_speakers] == ["Matej Sirovatka"]
    soccer = demo.sessions.get(
        slug="ball-tracking-and-detection-in-soccer-videos-comparison-of-vlms-and-traditional-pipelines"
    )
    assert (
        soccer.title
        == "Ball Tracking and Detection in Soccer Videos - Comparison of VLMs and Traditional Pipelines"
    )


@pytest.mark.django_db
def test_demo_fixture_cuts_the_byline_where_a_company_contains_a_dash(demo):
    session = demo.sessions.get(slug="building-a-pytorch-native-vllm-plugin-for-ibm-spyre")
    assert session.title == "Building a PyTorch\u2011native VLLM Plugin for IBM Spyre"
    assert [(speaker.name, speaker.company) for speaker in session.ordered_speakers] == [
        ("Thomas Parnell", "IBM Research"),
        ("Thomas Ortner", "IBM Research Europe - Zurich"),
    ]


@pytest.mark.django_db
def test_demo_fixture_splits_role_and_company_and_keeps_the_bio(demo):
    speaker = Speaker.objects.get(conference=demo, slug="hameer-abbasi")
    assert (speaker.role, speaker.company) == (
        "Senior Software Engineer I",
        "OpenTeams, Inc.",
    )
    assert speaker.affiliation == "Senior Software Engineer I, OpenTeams, Inc."
    assert speaker.bio.startswith(
        "Hameer Abbasi is a Senior Software Developer at OpenTeams, Inc. As part of"
    )
    assert speaker.bio.endswith("He is also the lead maintainer of PyData/Sparse, a library for...")
    assert "Read More" not in speaker.bio


@pytest.mark.django_db
def test_demo_fixture_puts_the_team_in_the_role_when_the_line_names_team_and_company(
    demo,
):
    speaker = Speaker.objects.get(conference=demo, slug="cormac-brick")
    assert (speaker.role, speaker.company) == (
        "Principal Engineer, Google AI Edge",
        "Google",
    )


@pytest.mark.django_db
def test_demo_fixture_keeps_a_multi_paragraph_bio(demo):
    speaker = Speaker.objects.get(conference=demo, slug="alpha-romer-coma")
    assert speaker.bio.startswith(
        "Alpha is an Associate Cloud Engineer in Kollab and a CS undergraduate"
    )
    assert "AWS Tranium.\n\nFor 5 months, he pushed Google Cloud TPUs v4s" in speaker.bio
    assert speaker.bio.endswith("sludge videos with 92% accuracy...")


@pytest.mark.django_db
def test_demo_fixture_gives_speakers_without_a_bio_an_empty_one(demo):
    without_bio = Speaker.objects.filter(conference=demo, bio="").values_list("name", flat=True)
    assert sorted(without_bio) == ["Ashesh Vidyut", "Maen Suleiman", "Sahana Venkatesh"]


@pytest.mark.django_db
def test_demo_fixture_keeps_the_speakers_block_spelling_of_names(demo):
    moon = Speaker.objects.get(conference=demo, slug="hyunkyun-moon")
    assert (moon.name, moon.role, moon.company) == (
        "hyunkyun moon",
        "MLOps Engineer",
        "Moreh",
    )
    grove = Speaker.objects.get(conference=demo, slug="dave-grove")
    assert [session.slug for session in grove.sessions.all()] == [
        "torch-spyre-compiling-to-a-multi-core-dataflow-accelerator-with-inductor"
    ]


@pytest.mark.django_db
def test_demo_fixture_links_a_speaker_of_two_sessions_once_to_both(demo):
    speaker = Speaker.objects.get(conference=demo, name="Yahav Biran")
    assert [session.title for session in speaker.sessions.order_by("starts_at")] == [
        "Pluggable PyTorch LLM Inference Architecture With VLLM and AWS Neuron Backends",
        "Distributed AI Without the Infrastructure Tax",
    ]
    assert speaker.bio.startswith("Yahav Biran is a Principal Architect at AWS")
    assert Speaker.objects.filter(conference=demo, name="Maen Suleiman").get().sessions.count() == 2


@pytest.mark.django_db
def test_demo_fixture_names_attachments_without_links(demo):
    attachments = Attachment.objects.filter(session__conference=demo)
    assert attachments.count() == 19
    assert {(attachment.file.name, attachment.url) for attachment in attachments} == {("", "")}
    live_migration = demo.sessions.get(
        slug="live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"
    )
    assert [attachment.title for attachment in live_migration.attachments.all()] == [
        "mike krom migration vms"
    ]
    bin_bao = demo.sessions.get(
        slug="accelerating-pytorch-models-with-torchcompiles-c-wrapper-mode"
    )
    assert [attachment.title for attachment in bin_bao.attachments.all()] == [
        "Accelerating PyTorch Models With torch.compile's Cpp Wrapper Mode.pptx"
    ]


@pytest.mark.django_db
def test_demo_fixture_objects_all_pass_full_clean(demo):
    objects = [
        demo,
        *Room.objects.filter(conference=demo),
        *Track.objects.filter(conference=demo),
        *Speaker.objects.filter(conference=demo),
        *Session.objects.filter(conference=demo),
        *SessionSpeaker.objects.filter(session__conference=demo),
        *Attachment.objects.filter(session__conference=demo),
    ]
    assert len(objects) == 149
    for obj in objects:
        obj.full_clean()
