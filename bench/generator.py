"""A synthetic, valid, published conference of any size, for load tests and benchmarks.

Everything comes from ``random.Random(seed)``, word lists and fixed dates (the first day is
Monday 10 May 2027, in Europe/Berlin), so a seed always gives the same titles, times and slugs.
Placement happens in memory first: each room fills its windows between the breaks without
overlap, and each speaker keeps a busy list so nobody gives two sessions at once. Rows are then
written with ``bulk_create``, which skips ``full_clean()`` and sends no signals: the placement
itself keeps every rule, and each ``bulk_create`` moves the conference's ``changed_at`` itself
(``ChangesConferenceQuerySet``).

Benchmark and demo tooling, not part of the site: bench/run.py calls ``generate_conference()``,
and bench/generate_conference.py runs it from the command line.
"""

import datetime
import math
import random
import re
import uuid
import zoneinfo
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count
from django.utils.text import slugify

from conference.models import Conference, Room, Track
from sessions.importers.writer import refresh_planner_statistics
from sessions.models import Attachment, Session, SessionSpeaker
from speakers.models import Speaker, SpeakerLink

FIRST_DAY = datetime.date(2027, 5, 10)
TIME_ZONE = "Europe/Berlin"
MIN_SESSIONS = 20
SESSIONS_PER_ROOM_AND_DAY = 12
SPEAKERS_PER_SESSION = 0.8  # size of the speaker pool, per session asked for
MAX_SESSIONS_PER_SPEAKER = 3
CHANGEOVER = 5  # minutes between two sessions in one room
GUID_NAMESPACE = uuid.UUID("3f0d6a52-8a3c-4c8e-9a51-0c1f6f0e2b7d")

Kind = Session.Kind
Level = Session.AudienceLevel


def hhmm(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


# The day every room follows, in minutes after local midnight. Keynotes open the day in the
# first room while the others are still empty; talks fill the windows between the breaks.
OPENING_KEYNOTE = (hhmm("09:00"), hhmm("09:45"))
AFTERNOON_KEYNOTE = (hhmm("14:00"), hhmm("14:45"))  # only in conferences of more than 300
WINDOWS = [("10:00", "11:00"), ("11:30", "13:00"), ("14:00", "16:00"), ("16:30", "18:30")]
BREAKS = [  # title, start, end, held in one room (else venue-wide)
    ("Coffee break", "11:00", "11:30", False),
    ("Lunch", "13:00", "14:00", False),
    ("Coffee & posters", "16:00", "16:30", True),
]

REGULAR_KINDS = [Kind.TALK, Kind.LIGHTNING_TALK, Kind.PANEL, Kind.WORKSHOP]
REGULAR_WEIGHTS = [66, 20, 8, 6]
TALK_MINUTES, TALK_MINUTE_WEIGHTS = [20, 25, 30, 40], [2, 4, 3, 1]
MINUTES = {Kind.KEYNOTE: 45, Kind.LIGHTNING_TALK: 10, Kind.PANEL: 45, Kind.WORKSHOP: 90}
# What a session shrinks to, longest first, when the room has no time left for what was drawn.
SHRINK_ORDER = [
    (Kind.WORKSHOP, 90),
    (Kind.PANEL, 45),
    (Kind.TALK, 40),
    (Kind.TALK, 30),
    (Kind.TALK, 25),
    (Kind.TALK, 20),
    (Kind.LIGHTNING_TALK, 10),
]
SHORTEST = SHRINK_ORDER[-1][1]
LEVELS, LEVEL_WEIGHTS = (
    [Level.ANY, Level.BEGINNER, Level.INTERMEDIATE, Level.ADVANCED],
    [3, 3, 3, 1],
)

TRACKS = [
    ("Machine Learning", "#ee4c2c"), ("Data Engineering", "#1f77b4"), ("Web Development", "#2ca02c"),
    ("Cloud & Infrastructure", "#9467bd"), ("Security & Privacy", "#b3261e"),
    ("Developer Experience", "#17becf"), ("Scientific Computing", "#8c564b"),
    ("Databases", "#7f7f7f"), ("Observability", "#bcbd22"), ("Community", "#e377c2"),
    ("Performance", "#ff7f0e"), ("Testing & Quality", "#006d77"), ("Edge & Embedded", "#5b6b7f"),
    ("Language Internals", "#6a4c93"), ("MLOps", "#d62828"), ("Data Visualisation", "#3a86ff"),
    ("Research", "#588157"), ("Accessibility", "#8338ec"), ("Open Source", "#fb8500"),
    ("Education", "#023047"),
]  # fmt: skip
NAMED_ROOMS = [
    "Main Hall", "Hall B", "Hall C", "Auditorium", "Spree", "Havel", "Tiergarten", "Kreuzberg",
    "Mitte", "Wedding", "Pankow", "Lichtenberg",
]  # fmt: skip
SUBJECTS = [
    "Data Pipelines", "Model Serving", "Observability", "Feature Stores", "Type Checking",
    "Packaging", "Async I/O", "Edge Inference", "Distributed Training", "Vector Search",
    "Stream Processing", "Accessibility", "Open Data", "Privacy Engineering",
    "Supply-Chain Security", "Time Series Forecasting", "Geospatial Analytics",
    "Reproducible Research", "API Design", "Database Migrations", "Test Automation",
    "Incident Response", "Platform Engineering", "GPU Scheduling", "Mixed-Precision Training",
    "Recommendation Systems", "Search Relevance", "Caching", "Web Performance", "Documentation",
    "Developer Experience", "Embedded Python", "Robotics", "Climate Modelling", "Bioinformatics",
    "Fraud Detection", "Speech Recognition", "Computer Vision", "Quantisation", "Data Contracts",
    "Schema Evolution", "Multi-Tenant SaaS", "Load Testing", "Dependency Management",
]  # fmt: skip
PROPER_NOUNS = {"Python"}
TOOLS = [
    "PyTorch", "Django", "PostgreSQL", "Kubernetes", "Kafka", "DuckDB", "Polars", "Rust",
    "Apache Arrow", "Ray", "Dask", "FastAPI", "Celery", "Redis", "Terraform", "OpenTelemetry",
    "Prometheus", "Airflow", "dbt", "Spark", "WebAssembly", "htmx", "JAX", "ONNX", "SQLite",
    "NumPy", "pandas", "scikit-learn", "Grafana", "Hypothesis",
]  # fmt: skip
OUTCOMES = [
    "What Actually Worked", "Lessons from Two Years in Production", "A Field Report",
    "Mistakes We Made So You Don't Have To", "Patterns and Pitfalls", "The Boring Parts",
    "Doing More with Less", "A Migration Story", "Numbers, Not Opinions", "Shipping It Safely",
]  # fmt: skip
TITLE_PATTERNS = {
    Kind.TALK: [
        "{Subject} at Scale: {outcome}", "Scaling {Subject} to {number} Users",
        "{tool} in Production: {outcome}", "A Practical Guide to {Subject}",
        "From {Subject} to {Subject2}: {outcome}", "Beyond {Subject}",
        "Debugging {Subject} Without Losing Your Mind", "How {company} Rebuilt {Subject} with {tool}",
        "{Subject} for the Rest of Us", "The Hidden Cost of {Subject}",
        "Making {Subject} Boring Again", "{small} Things We Wish We Knew About {Subject}",
        "{Subject} with {tool}: {outcome}", "Is {Subject} Worth It?",
    ],
    Kind.LIGHTNING_TALK: [
        "{tool} in Five Minutes", "One Small Trick for {Subject}",
        "Why I Stopped Worrying About {Subject}", "A Tiny Tool for {Subject}",
        "{Subject} in One Slide", "What {tool} Taught Me About {Subject}",
        "{Subject} with {tool}, Quickly", "A {tool} Plugin for {Subject}",
    ],
    Kind.PANEL: [
        "The Future of {Subject}", "Ask the {tool} Maintainers", "{Subject} in Europe: What Next?",
        "Hiring and Growing {Subject} Teams", "{Subject} and {Subject2}: Friends or Rivals?",
    ],
    Kind.WORKSHOP: [
        "Hands-on {tool}: {Subject} from Scratch", "Build Your First {Subject} Service with {tool}",
        "Testing {Subject} with {tool}", "{Subject} Clinic: Bring Your Own Problem",
        "{Subject} and {Subject2} with {tool}, Step by Step",
    ],
    Kind.KEYNOTE: [
        "The Next Ten Years of {Subject}", "Open Source, Open Science, Open {Subject}",
        "What {Subject} Taught Us About People", "Sustainable {Subject}",
    ],
}  # fmt: skip
DESCRIPTION_SENTENCES = [
    "{Subject} has quietly become one of the hardest parts of running software at {company}.",
    "Most teams meet {subject} long before they have the tools or the vocabulary for it.",
    "In this session we walk through how we moved from a fragile prototype to a service that "
    "handles {number} requests a day with `{tool}`.",
    "We will look at the trade-offs between {subject} and {subject2}, and when each one wins.",
    "You will see real graphs from production, including the week everything went wrong.",
    "Along the way we share the small scripts and checklists that saved us the most time.",
    "The examples use `{tool}`, but the ideas carry over to any stack.",
    "We measured everything: latency, memory, cost per request and the time engineers spent "
    "on call.",
    "Attendees should be comfortable reading Python; no prior experience with {subject} is "
    "needed.",
    "The second half is a live demo that starts from an empty repository.",
    "We close with the open questions we have not solved yet, and how the community could help.",
    "Our approach combines {tool} with a handful of conventions about {subject}.",
    "This is the story of {number} lines of code we deleted and why nobody missed them.",
    "Expect honest numbers rather than marketing, and a few mistakes we are still embarrassed "
    "about.",
    "Along the way we contributed several fixes upstream to {tool}, which we will also cover.",
    "If you have ever been paged at three in the morning because of {subject}, this is for you.",
    "At {company} we run {subject} for dozens of teams, and every one of them uses it differently.",
    "The first version took a weekend; making it reliable took the rest of the year.",
    "We compare three designs side by side and explain why we threw two of them away.",
    "None of this needs a large team: two engineers built and still run everything we show.",
    "You will leave with a short list of metrics worth watching and a few alerts worth deleting.",
    "Slides, notebooks and the benchmark code will be published after the session.",
    "We also cover what changed when {subject2} entered the picture.",
    "The talk is based on {small} months of notes, post-mortems and pull-request reviews.",
]  # fmt: skip
LEARNING_POINTS = [
    "how to measure {subject} before changing it",
    "when {tool} is the right choice, and when it is not",
    "a migration plan that keeps the old system running",
    "how to test {subject} without a staging environment",
    "which defaults to change on day one",
    "how we explain {subject} to the rest of the company",
    "a checklist for reviewing {subject} changes",
]  # fmt: skip
FIRST_NAMES = [
    "Aisha", "Alejandro", "Amara", "Anders", "Ana", "Anika", "Arjun", "Astrid", "Ayumi", "Bartosz",
    "Beatriz", "Bilal", "Camille", "Carlos", "Chiara", "Chen", "Dara", "Dmitri", "Elena", "Emeka",
    "Emma", "Farah", "Felix", "Fatima", "Giulia", "Hana", "Hugo", "Ines", "Ingrid", "Isaac",
    "Jakub", "Jana", "Javier", "Jonas", "Kai", "Kateryna", "Kenji", "Lars", "Leila", "Lena",
    "Lucas", "Luisa", "Mai", "Malik", "Marco", "Maria", "Mateo", "Mei", "Miguel", "Mira",
    "Nadia", "Nikolai", "Noah", "Olga", "Omar", "Paula", "Pedro", "Priya", "Rafael", "Rania",
    "Ravi", "Rosa", "Samir", "Sara", "Sofia", "Sven", "Tariq", "Tomas", "Yara", "Yusuf",
    "Zainab", "Zofia", "Lukas", "Marta", "Nils", "Oskar", "Pia", "Selin", "Tuan", "Vera",
]  # fmt: skip
LAST_NAMES = [
    "Abara", "Andersen", "Bauer", "Becker", "Bianchi", "Costa", "Dąbrowski", "Dubois", "Eriksson",
    "Fernández", "Fischer", "Garcia", "Gruber", "Hansen", "Hoffmann", "Ibrahim", "Ivanova",
    "Jansen", "Kaya", "Kowalska", "Kumar", "Lambert", "Larsen", "Lindqvist", "López", "Martin",
    "Meyer", "Moreau", "Müller", "Nakamura", "Nguyen", "Novak", "Okafor", "Olsen", "Oliveira",
    "Papadopoulos", "Petrov", "Popescu", "Rossi", "Russo", "Sato", "Schmidt", "Schneider",
    "Silva", "Singh", "Smith", "Sørensen", "Tanaka", "Tran", "Varga", "Virtanen", "Wagner",
    "Wang", "Weber", "Wójcik", "Yilmaz", "Zhang", "Zimmermann", "Kovač", "Horvat", "Mensah",
    "Haddad", "Rahman", "Lopes", "Laine", "Moretti", "Vogel", "Brandt", "Keller", "Richter",
    "Wolff", "Krüger", "Lehmann", "Köhler", "Sousa", "Pereira", "Ferrari", "Marino", "Greco",
]  # fmt: skip
ROLES = [
    "Software Engineer", "Senior Software Engineer", "Staff Engineer", "Principal Engineer",
    "Data Scientist", "Machine Learning Engineer", "Research Scientist", "Engineering Manager",
    "CTO", "Developer Advocate", "Site Reliability Engineer", "PhD Student", "Professor",
    "Product Manager", "Data Engineer", "Open Source Maintainer", "Security Engineer",
    "Solutions Architect", "Founder", "Independent Consultant",
]  # fmt: skip
COMPANY_WORDS = [
    "Northwind", "Bluefin", "Lumen", "Quarry", "Helix", "Kestrel", "Arbor", "Tidal", "Granite",
    "Nimbus", "Polaris", "Fjord", "Cobalt", "Meridian", "Juniper", "Atlas", "Beacon", "Cedar",
    "Orbit", "Saffron",
]  # fmt: skip
COMPANY_KINDS = [
    "Labs", "Analytics", "Systems", "Robotics", "Health", "Energy", "Logistics", "Bank",
    "Software", "AI", "Cloud", "Research", "Mobility", "Insurance", "Media",
]  # fmt: skip
CITIES = ["Berlin", "Lisbon", "Kraków", "Lyon", "Tallinn", "Utrecht", "Bologna", "Aarhus"]
FIELDS = ["computer science", "physics", "statistics", "computational biology", "linguistics"]
HOBBIES = [
    "climbing", "restoring old bicycles", "baking sourdough", "playing the cello",
    "long-distance running", "board games", "birdwatching", "sailing",
]  # fmt: skip
BIO_SENTENCES = [
    "Before joining {company}, {first} spent {years} years building {subject} systems at "
    "{company2}.",
    "{first} maintains several open-source libraries for {subject} and contributes to {tool}.",
    "{first} has spoken at meetups and conferences across Europe about {subject} and "
    "{subject2}.",
    "Outside work, {first} enjoys {hobby}.",
    "{first} holds a PhD in {field} from the University of {city}.",
    "Recent work includes a {tool}-based platform that serves {number} requests a day.",
    "{first} cares about sustainable open source and mentors new contributors in the {tool} "
    "community.",
    "{first} writes about {subject} on a personal blog and is happy to talk about it over coffee.",
    "{first} co-organises the {tool} user group in {city}.",
    "{first} started programming by automating spreadsheets and never stopped.",
    "At {company}, {first} leads the work on {subject2} and the internal tooling around it.",
    "{first} has taught {subject} to hundreds of students in workshops and online courses.",
    "{first} lives in {city} and commutes by bicycle whatever the weather.",
]  # fmt: skip
BREAK_DESCRIPTIONS = {
    "Coffee break": "Coffee, tea and snacks in the foyer.",
    "Lunch": "Lunch is served on the ground floor; vegetarian and vegan options are labelled.",
    "Coffee & posters": "Coffee in the poster area: meet the authors of this year's posters.",
}
LINK_KINDS = [
    ("Website", "https://{slug}.example.net/"),
    ("GitHub", "https://git.example.com/{slug}"),
    ("Mastodon", "https://social.example.org/@{slug}"),
]


@dataclass(frozen=True)
class Shape:
    """How big the conference is: derived from the number of sessions alone."""

    sessions: int
    days: int
    rooms: int
    tracks: int
    keynotes_per_day: int

    @classmethod
    def of(cls, sessions: int) -> "Shape":
        days = 2 if sessions <= 300 else 3
        return cls(
            sessions=sessions,
            days=days,
            rooms=max(2, math.ceil(sessions / (days * SESSIONS_PER_ROOM_AND_DAY))),
            tracks=min(20, max(3, round(sessions / 40))),
            keynotes_per_day=1 if sessions <= 300 else 2,
        )


@dataclass
class Plan:
    """One session placed in memory: times are minutes after local midnight of its day."""

    kind: str
    day: int
    start: int
    end: int
    room: int | None  # index into the rooms; None is venue-wide
    title: str = ""
    words: dict[str, str] = field(default_factory=dict)  # what the title is about, for the text
    speakers: list[int] = field(default_factory=list)  # indexes into the speaker pool

    @property
    def span(self) -> tuple[int, int]:
        """Start and end in minutes since the first day began, to compare across days."""
        return self.day * 1440 + self.start, self.day * 1440 + self.end


@dataclass
class Person:
    name: str
    slug: str
    role: str
    company: str
    busy: list[tuple[int, int]] = field(default_factory=list)


def default_slug(sessions: int, seed: int = 0) -> str:
    return f"generated-{sessions}-{seed}"


def generate_conference(sessions: int, seed: int = 0, slug: str | None = None) -> Conference:
    """Create a published conference of exactly ``sessions`` sessions, valid under every rule.

    Raises ValueError for fewer than MIN_SESSIONS, and ValidationError for a bad or taken slug.
    """
    if sessions < MIN_SESSIONS:
        raise ValueError(f"A generated conference needs at least {MIN_SESSIONS} sessions.")
    rng = random.Random(seed)
    shape = Shape.of(sessions)
    plans = plan_sessions(rng, shape)
    people = assign_speakers(rng, plans, pool_size=round(sessions * SPEAKERS_PER_SESSION))
    with transaction.atomic():
        conference = create_conference(rng, shape, slug or default_slug(sessions, seed))
        rooms = create_rooms(rng, conference, shape.rooms)
        tracks = create_tracks(rng, conference, shape.tracks)
        speakers = create_speakers(rng, conference, people)
        create_sessions(rng, conference, plans, rooms, tracks, speakers)
    refresh_planner_statistics()  # as an import of the same conference does
    conference.refresh_from_db()
    return conference


def summary(conference: Conference) -> list[str]:
    """What the conference holds, one line per kind of row."""
    sessions = Session.objects.filter(conference=conference)
    kinds = dict(sessions.values_list("kind").annotate(count=Count("pk")).order_by("kind"))
    by_kind = ", ".join(
        f"{kinds[kind]} {label.lower()}" for kind, label in Session.Kind.choices if kind in kinds
    )
    days = len(conference.days)
    return [
        f"{sum(kinds.values())} sessions over {days} days "
        f"({conference.starts_on:%d %b %Y}–{conference.ends_on:%d %b %Y}, {conference.time_zone}): "
        f"{by_kind}",
        f"{conference.rooms.count()} rooms, {conference.tracks.count()} tracks",
        f"{conference.speakers.count()} speakers with "
        f"{SpeakerLink.objects.filter(speaker__conference=conference).count()} links, "
        f"{SessionSpeaker.objects.filter(session__conference=conference).count()} "
        "speaker appearances",
        f"{Attachment.objects.filter(session__conference=conference).count()} attachments",
    ]


# Placement ----------------------------------------------------------------------------------


def plan_sessions(rng: random.Random, shape: Shape) -> list[Plan]:
    """Keynotes and breaks at fixed times, then the rest spread evenly over every room and day."""
    plans = fixed_sessions(rng, shape)
    room_days = [(day, room) for day in range(shape.days) for room in range(shape.rooms)]
    each, extra = divmod(shape.sessions - len(plans), len(room_days))
    fuller = set(rng.sample(range(len(room_days)), extra))
    for index, (day, room) in enumerate(room_days):
        windows = [[hhmm(start), hhmm(end)] for start, end in WINDOWS]
        if room == 0 and shape.keynotes_per_day > 1:
            windows[2][0] = AFTERNOON_KEYNOTE[1] + CHANGEOVER
        count = each + (index in fuller)
        plans += fill_room_day(rng, day, room, windows, count)
    titles: set[str] = set()
    for plan in plans:
        if plan.kind != Kind.BREAK:  # breaks were named when placed
            name_session(rng, plan, titles)
    return plans


def name_session(rng: random.Random, plan: Plan, taken: set[str]) -> None:
    """A title no other session has, if ten draws find one; its words also feed the description."""
    for _ in range(10):
        plan.words = words(rng)
        plan.title = rng.choice(TITLE_PATTERNS[plan.kind]).format(**plan.words)
        if plan.title not in taken:
            break
    taken.add(plan.title)


def fixed_sessions(rng: random.Random, shape: Shape) -> list[Plan]:
    plans = []
    for day in range(shape.days):
        keynotes = [OPENING_KEYNOTE, AFTERNOON_KEYNOTE][: shape.keynotes_per_day]
        plans += [Plan(Kind.KEYNOTE, day, start, end, room=0) for start, end in keynotes]
        for title, start, end, in_a_room in BREAKS:
            room = rng.randrange(shape.rooms) if in_a_room else None
            plans.append(Plan(Kind.BREAK, day, hhmm(start), hhmm(end), room, title=title))
    return plans


def fill_room_day(
    rng: random.Random, day: int, room: int, windows: list[list[int]], count: int
) -> list[Plan]:
    """``count`` sessions in one room on one day, each in the window with the most time left.

    ``windows`` are [next free minute, end] pairs. A drawn kind that no longer fits shrinks to a
    shorter one; the time left must always hold a lightning talk for every session still to come.
    """
    plans = []
    for still_to_come in range(count - 1, -1, -1):
        for kind, minutes in shrink_options(*draw_kind(rng)):
            window = max(windows, key=lambda window: window[1] - window[0])
            start = window[0]
            if start + minutes > window[1]:
                continue
            window[0] = start + minutes + CHANGEOVER
            if lightning_talks_that_fit(windows) >= still_to_come:
                plans.append(Plan(kind, day, start, start + minutes, room))
                break
            window[0] = start
        else:
            raise RuntimeError(f"No time left in room {room} on day {day}.")  # by construction
    return plans


def draw_kind(rng: random.Random) -> tuple[str, int]:
    kind = rng.choices(REGULAR_KINDS, REGULAR_WEIGHTS)[0]
    if kind == Kind.TALK:
        return kind, rng.choices(TALK_MINUTES, TALK_MINUTE_WEIGHTS)[0]
    return kind, MINUTES[kind]


def shrink_options(kind: str, minutes: int) -> list[tuple[str, int]]:
    return [(kind, minutes)] + [option for option in SHRINK_ORDER if option[1] < minutes]


def lightning_talks_that_fit(windows: list[list[int]]) -> int:
    return sum(
        (end - start - SHORTEST) // (SHORTEST + CHANGEOVER) + 1
        for start, end in windows
        if end - start >= SHORTEST
    )


def assign_speakers(rng: random.Random, plans: list[Plan], pool_size: int) -> list[Person]:
    """Give every session but the breaks its speakers, never one who is busy at that time.

    The pool is used up first, so every speaker has a session; later sessions reuse speakers
    who are free then (at most MAX_SESSIONS_PER_SPEAKER each), and the pool grows only if no
    free speaker is found.
    """
    people: list[Person] = []
    names: set[str] = set()
    for plan in rng.sample(plans, len(plans)):
        for _ in range(speaker_count(rng, plan.kind)):
            if len(people) < pool_size:
                index = len(people)
                people.append(new_person(rng, names))
            else:
                index = free_speaker(rng, people, plan)
                if index is None:
                    index = len(people)
                    people.append(new_person(rng, names))
            people[index].busy.append(plan.span)
            plan.speakers.append(index)
    return people


def speaker_count(rng: random.Random, kind: str) -> int:
    if kind == Kind.BREAK:
        return 0
    if kind == Kind.TALK:
        return rng.choices([1, 2, 3], [70, 25, 5])[0]
    if kind == Kind.PANEL:
        return 3
    if kind == Kind.WORKSHOP:
        return rng.choice([1, 2])
    return 1


def free_speaker(rng: random.Random, people: list[Person], plan: Plan) -> int | None:
    start, end = plan.span
    for _ in range(40):
        index = rng.randrange(len(people))
        busy = people[index].busy
        if len(busy) < MAX_SESSIONS_PER_SPEAKER and all(
            end <= taken_start or taken_end <= start for taken_start, taken_end in busy
        ):
            return index
    return None


# Text -------------------------------------------------------------------------------------


def lower_phrase(phrase: str) -> str:
    """“Data Pipelines” reads “data pipelines” in a sentence; “GPU”, “SaaS”, “Python” stay."""
    return re.sub(r"[\w/]+", lambda match: lower_word(match[0]), phrase)


def lower_word(word: str) -> str:
    keep = word in PROPER_NOUNS or "/" in word or sum(map(str.isupper, word)) > 1
    return word if keep else word.lower()


def company_name(rng: random.Random) -> str:
    if rng.random() < 0.12:
        return f"University of {rng.choice(CITIES)}"
    return f"{rng.choice(COMPANY_WORDS)} {rng.choice(COMPANY_KINDS)}"


def words(rng: random.Random, **extra: str) -> dict[str, str]:
    """Values for every placeholder the patterns use."""
    subject, subject2 = rng.sample(SUBJECTS, 2)
    return {
        "Subject": subject,
        "Subject2": subject2,
        "subject": lower_phrase(subject),
        "subject2": lower_phrase(subject2),
        "tool": rng.choice(TOOLS),
        "outcome": rng.choice(OUTCOMES),
        "company": company_name(rng),
        "company2": company_name(rng),
        "number": f"{rng.choice([2, 5, 10, 40, 100, 250])} million",
        "small": str(rng.randint(3, 12)),
        "years": str(rng.randint(2, 15)),
        "hobby": rng.choice(HOBBIES),
        "field": rng.choice(FIELDS),
        "city": rng.choice(CITIES),
        **extra,
    }


def compose(
    rng: random.Random,
    templates: list[str],
    values: dict[str, str],
    *,
    low: int,
    high: int,
    paragraphs: int,
) -> str:
    """Sentences grouped into ``paragraphs``, between ``low`` and ``high`` characters long.

    Templates come in random order, each used once before any repeats.
    """
    target = rng.randint(low, high)
    parts: list[str] = []
    queue: list[str] = []
    size = misses = 0
    # ``size`` counts two separators per sentence, so the text is at most ``size`` - 2 long and
    # at least ``size`` - len(parts) - 1 (one-character separators inside paragraphs).
    while size - len(parts) - 1 < target and misses < 2 * len(templates):
        queue = queue or rng.sample(templates, len(templates))
        text = queue.pop().format(**values)
        if size + len(text) > high:
            misses += 1
            continue
        parts.append(text)
        size += len(text) + 2
    per_paragraph = max(1, math.ceil(len(parts) / paragraphs))
    return "\n\n".join(
        " ".join(parts[index : index + per_paragraph])
        for index in range(0, len(parts), per_paragraph)
    )


def session_description(rng: random.Random, plan: Plan) -> str:
    """600–1800 characters of Markdown, in 2–4 paragraphs, sometimes ending with a list."""
    if plan.kind == Kind.BREAK:
        return BREAK_DESCRIPTIONS[plan.title]
    values = plan.words
    points = ""
    if rng.random() < 0.35:
        chosen = rng.sample(LEARNING_POINTS, 3)
        points = "\n\nYou will learn:\n\n" + "\n".join(f"- {p.format(**values)}" for p in chosen)
    prose = compose(
        rng,
        DESCRIPTION_SENTENCES,
        values,
        low=600 - len(points),
        high=1800 - len(points),
        paragraphs=rng.randint(2, 4),
    )
    return prose + points


def speaker_bio(rng: random.Random, person: Person) -> str:
    """300–900 characters: who they are, then a few facts in random order."""
    first = person.name.split()[0]
    values = words(rng, first=first, company=person.company)
    opening = f"{first} is {article(person.role)} {person.role} at {person.company}."
    facts = compose(
        rng,
        BIO_SENTENCES,
        values,
        low=300 - len(opening) - 1,
        high=900 - len(opening) - 1,
        paragraphs=rng.randint(1, 2),
    )
    return f"{opening} {facts}"


def article(noun: str) -> str:
    return "an" if noun[0] in "AEIOU" else "a"


def new_person(rng: random.Random, taken: set[str]) -> Person:
    """A speaker with a name nobody else at the conference has."""
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    name = f"{first} {last}"
    for initial in "ABCDEFGHJKLMNOPRSTVW":
        if name not in taken:
            break
        name = f"{first} {initial}. {last}"
    else:
        name = f"{first} {last} {len(taken)}"
    taken.add(name)
    return Person(name=name, slug="", role=rng.choice(ROLES), company=company_name(rng))


class SlugMaker:
    """Slugs unique within the conference: “lunch”, then “lunch-2”, “lunch-3”."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, text: str, max_length: int) -> str:
        base = slugify(text)[: max_length - 6].strip("-") or "item"
        slug, number = base, 1
        while slug in self.used:
            number += 1
            slug = f"{base}-{number}"
        self.used.add(slug)
        return slug


# Rows -------------------------------------------------------------------------------------


def local_instant(tz: zoneinfo.ZoneInfo, day: int, minute: int) -> datetime.datetime:
    date = FIRST_DAY + datetime.timedelta(days=day)
    return datetime.datetime.combine(date, datetime.time(minute // 60, minute % 60), tzinfo=tz)


def guid(conference: Conference, kind: str, slug: str) -> str:
    """Stable for a seed and slug, and different in every conference."""
    return str(uuid.uuid5(GUID_NAMESPACE, f"{conference.slug}/{kind}/{slug}"))


def create_conference(rng: random.Random, shape: Shape, slug: str) -> Conference:
    name = f"{rng.choice(COMPANY_WORDS)} {rng.choice(['Data', 'Open Source', 'Systems'])} Summit"
    conference = Conference(
        name=f"{name} 2027",
        slug=slug,
        starts_on=FIRST_DAY,
        ends_on=FIRST_DAY + datetime.timedelta(days=shape.days - 1),
        time_zone=TIME_ZONE,
        venue="Spreeufer Congress Centre",
        city="Berlin",
        description=(
            f"A generated conference of {shape.sessions} sessions over {shape.days} days "
            f"in {shape.rooms} rooms, for load tests.\n\nAll names and texts are made up."
        ),
        registration_url="https://tickets.example.org/",
        contact_email="program@example.org",
        is_published=True,
    )
    conference.full_clean()  # the slug comes from a person: it must be valid and free
    conference.save()
    return conference


def create_rooms(rng: random.Random, conference: Conference, count: int) -> list[Room]:
    names = NAMED_ROOMS[:count] + [
        f"Room {1 + index // 20}.{index % 20 + 1:02d}" for index in range(count - len(NAMED_ROOMS))
    ]
    rooms = [
        Room(
            conference=conference,
            name=name,
            slug=slugify(name),
            capacity=1200 if position == 0 else rng.choice([40, 60, 80, 120, 200, 300, 500]),
            position=position,
        )
        for position, name in enumerate(names)
    ]
    return Room.objects.bulk_create(rooms)


def create_tracks(rng: random.Random, conference: Conference, count: int) -> list[Track]:
    tracks = [
        Track(conference=conference, name=name, slug=slugify(name), colour=colour)
        for name, colour in rng.sample(TRACKS, count)
    ]
    return Track.objects.bulk_create(tracks)


def create_speakers(
    rng: random.Random, conference: Conference, people: list[Person]
) -> list[Speaker]:
    slugs = SlugMaker()
    speakers = []
    for person in people:
        person.slug = slugs(person.name, max_length=200)
        speakers.append(
            Speaker(
                conference=conference,
                guid=guid(conference, "speaker", person.slug),
                name=person.name,
                slug=person.slug,
                role=person.role,
                company=person.company,
                bio=speaker_bio(rng, person),
            )
        )
    Speaker.objects.bulk_create(speakers, batch_size=500)
    links = [
        SpeakerLink(
            speaker=speaker, title=title, url=url.format(slug=speaker.slug), position=position
        )
        for speaker in speakers
        if rng.random() < 0.5
        for position, (title, url) in enumerate(rng.sample(LINK_KINDS, rng.randint(1, 2)))
    ]
    SpeakerLink.objects.bulk_create(links, batch_size=500)
    return speakers


def create_sessions(
    rng: random.Random,
    conference: Conference,
    plans: list[Plan],
    rooms: list[Room],
    tracks: list[Track],
    speakers: list[Speaker],
) -> None:
    tz = zoneinfo.ZoneInfo(TIME_ZONE)
    slugs = SlugMaker()
    plans = sorted(plans, key=lambda plan: (plan.span, plan.room if plan.room is not None else -1))
    sessions = []
    for plan in plans:
        slug = slugs(plan.title, max_length=300)
        sessions.append(
            Session(
                conference=conference,
                guid=guid(conference, "session", slug),
                title=plan.title,
                slug=slug,
                kind=plan.kind,
                track=session_track(rng, plan, tracks),
                room=rooms[plan.room] if plan.room is not None else None,
                starts_at=local_instant(tz, plan.day, plan.start),
                ends_at=local_instant(tz, plan.day, plan.end),
                description=session_description(rng, plan),
                audience_level=session_level(rng, plan.kind),
                status=Session.Status.PUBLISHED,
            )
        )
    Session.objects.bulk_create(sessions, batch_size=500)
    SessionSpeaker.objects.bulk_create(
        [
            SessionSpeaker(session=session, speaker=speakers[index], position=position)
            for session, plan in zip(sessions, plans, strict=True)
            for position, index in enumerate(plan.speakers)
        ],
        batch_size=1000,
    )
    Attachment.objects.bulk_create(
        [
            attachment
            for session, plan in zip(sessions, plans, strict=True)
            for attachment in session_attachments(rng, session, plan, speakers)
        ],
        batch_size=1000,
    )


def session_track(rng: random.Random, plan: Plan, tracks: list[Track]) -> Track | None:
    """Most sessions in a room on a day share its track, as a programme committee arranges them."""
    if plan.kind in (Kind.BREAK, Kind.KEYNOTE):
        return None
    if plan.room is not None and rng.random() < 0.6:
        return tracks[(plan.room + plan.day) % len(tracks)]
    return rng.choice(tracks)


def session_level(rng: random.Random, kind: str) -> str:
    if kind in (Kind.BREAK, Kind.KEYNOTE):
        return Level.ANY
    return rng.choices(LEVELS, LEVEL_WEIGHTS)[0]


def session_attachments(
    rng: random.Random, session: Session, plan: Plan, speakers: list[Speaker]
) -> list[Attachment]:
    if plan.kind == Kind.BREAK:
        return []
    attachments = []
    if rng.random() < 0.2:
        url = f"https://slides.example.org/{session.conference.slug}/{session.slug}.pdf"
        attachments.append(Attachment(session=session, title="Slides", url=url))
    if plan.kind == Kind.WORKSHOP and rng.random() < 0.6:
        owner = speakers[plan.speakers[0]].slug
        url = f"https://git.example.com/{owner}/{session.slug}"
        attachments.append(
            Attachment(session=session, title="Workshop materials", url=url, position=1)
        )
    return attachments
