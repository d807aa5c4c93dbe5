"""Each session's part of an export, cached (the store: conference/pages/fragments.py).

Any edit moves Conference.changed_at, and with it every whole export the page cache keeps.
Each session's part (its VEVENT, its frab event as JSON or XML) is cached on its own, under a
key naming everything it shows: the session's own version; its room's and track's versions;
its speakers, in order, with their versions (and for frab their links); its links and
attachments as stored, since they carry no version; the conference's own fields, the site's
address and the code's release. After an edit, the next export renders only the sessions whose
key moved, from one query of those columns per kind of row plus the model objects of those
sessions alone.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from django.conf import settings
from django.db import router
from django.db.models import Prefetch, QuerySet

from conference.models import Conference
from conference.pages.fragments import FragmentKeys, cached_fragments
from sessions.exports.frab_schedule import FrabEvent, frab_events
from sessions.exports.ical import CalendarEvent, calendar_event, calendar_host
from sessions.exports.rows import grouped_rows, loaded_columns
from sessions.models import Attachment, Session, SessionLink, SessionSpeaker
from speakers.models import Speaker, SpeakerLink

FRAGMENT_BATCH = 1000  # sessions loaded at once: bounds the memory of a 10,000-session export


def calendar_events(
    conference: Conference, sessions: QuerySet, *, base_url: str
) -> list[CalendarEvent]:
    """The VEVENTs of ``sessions`` (a filtered, ordered queryset of the conference's), cached."""
    host = calendar_host(base_url)

    def render(loaded: list[Session]) -> list[CalendarEvent]:
        return [calendar_event(conference, session, base_url, host) for session in loaded]

    return session_fragments(conference, sessions.for_ical(), "ics", base_url, render)


def cached_frab_events(
    conference: Conference, sessions: QuerySet, *, base_url: str, form: str
) -> list[FrabEvent]:
    """The frab events of ``sessions`` written in ``form`` ("json" or "xml"), cached."""

    persons, persons_json = {}, {}  # across batches: a speaker is written once per export

    def render(loaded: list[Session]) -> list[FrabEvent]:
        return frab_events(conference, loaded, base_url, form, persons, persons_json)

    return session_fragments(conference, sessions.for_export(), form, base_url, render)


def session_fragments(
    conference: Conference,
    sessions: QuerySet,
    form: str,
    base_url: str,
    render: Callable[[list[Session]], list],
) -> list:
    """One fragment per session of ``sessions``, in its order: from the cache when its key is
    there, else rendered from sessions loaded for it (with the loading ``sessions`` asks for)
    and then cached (conference/pages/fragments.py)."""
    loader = RowLoader(conference, sessions)
    keys = fragment_keys(conference, sessions, form, base_url)
    if keys is None:
        # Too many to keep in each worker's memory (settings.EXPORT_FRAGMENT_MAX_SESSIONS).
        return [fragment for batch in loader.every_session() for fragment in render(batch)]

    def render_missing(missing: list[int]) -> Iterator[dict[int, object]]:
        if len(missing) == len(keys):
            # Nothing cached (a cleared cache, a new release): the query as given, not lists of ids.
            batches = loader.every_session()
        else:
            batches = (
                loader.sessions(
                    list(
                        loader.rows.order_by().filter(
                            pk__in=missing[start : start + FRAGMENT_BATCH]
                        )
                    )
                )
                for start in range(0, len(missing), FRAGMENT_BATCH)
            )
        for batch in batches:
            # A session added since the keys were read waits for the next export, as if later.
            loaded = [session for session in batch if session.pk in keys]
            yield {
                session.pk: fragment
                for session, fragment in zip(loaded, render(loaded), strict=True)
            }

    found = cached_fragments(keys, render_missing)
    # A session deleted between the two queries is left out, as a moment later it would be.
    return [found[key] for key in keys.values() if key in found]


class RowLoader:
    """The sessions of ``sessions`` (``for_ical()`` or ``for_export()``) as that queryset would
    load them (its columns, its speakers' columns, its links and attachments), read as value rows.

    The related rows are read once per batch rather than by prefetch_related; ``model_object``
    makes each row the model object a queryset would (from_db), so every property the writers
    read (display_title, get_absolute_url...) stays the model's own.
    """

    def __init__(self, conference: Conference, sessions: QuerySet):
        self.conference = conference
        self.columns = loaded_columns(sessions)
        self.rows = sessions.prefetch_related(None).values_list(*self.columns)
        prefetches = {
            lookup.to_attr: lookup
            for lookup in sessions._prefetch_related_lookups
            if isinstance(lookup, Prefetch)
        }
        speakers = prefetches["prefetched_speakers"].queryset
        self.speaker_columns = loaded_columns(speakers)
        self.references = "prefetched_links" in prefetches
        self.rooms = {room.pk: room for room in conference.rooms.all()}
        self.tracks = {track.pk: track for track in conference.tracks.all()}

    def every_session(self) -> Iterator[list[Session]]:
        """Every session of ``self.rows``, a batch at a time, with their related rows read once
        for all of them.

        One query per kind of related row instead of one per batch, each with a list of a
        thousand ids for Django to turn into SQL.
        """
        related = self.related(self.rows.order_by().values("pk"))
        for batch in in_batches(self.rows.iterator(chunk_size=FRAGMENT_BATCH), FRAGMENT_BATCH):
            yield self.sessions(batch, related)

    def sessions(self, rows: list[tuple], related: "RelatedRows | None" = None) -> list[Session]:
        """Sessions from ``rows`` of ``self.rows``, with their related rows (``related``, else
        three queries)."""
        if related is None:
            related = self.related([row[0] for row in rows])
        appearances, links, attachments = related
        loaded = []
        for row in rows:
            session = model_object(Session, self.columns, row, conference=self.conference)
            relations = session._state.fields_cache
            relations["room"] = self.rooms.get(session.room_id)
            relations["track"] = self.tracks.get(session.track_id)
            session.prefetched_speakers = appearances.get(session.pk, [])
            if self.references:
                session.prefetched_links = links.get(session.pk, [])
                session.prefetched_attachments = attachments.get(session.pk, [])
            loaded.append(session)
        return loaded

    def related(self, pks: list[int] | QuerySet) -> "RelatedRows":
        """The speakers, links and attachments of the sessions ``pks`` names, by session."""
        speakers: dict[int, Speaker] = {}
        appearances = defaultdict(list)
        for session_id, *speaker_row in (
            SessionSpeaker.objects.filter(session_id__in=pks)
            .order_by("session_id", "position", "pk")
            .values_list("session_id", *(f"speaker__{name}" for name in self.speaker_columns))
        ):
            speaker = speakers.get(speaker_row[0])
            if speaker is None:
                speaker = speakers[speaker_row[0]] = model_object(
                    Speaker, self.speaker_columns, speaker_row, conference=self.conference
                )
            appearances[session_id].append(speaker)
        links = attachments = {}
        if self.references:
            links = grouped_rows(SessionLink.objects.filter(session_id__in=pks))
            attachments = grouped_objects(Attachment.objects.filter(session_id__in=pks))
            # The speakers' links too, read with theirs (frab_persons): a list of ids per batch
            # cost more to turn into SQL than the query took.
            speaker_links = grouped_rows(
                SpeakerLink.objects.filter(
                    speaker_id__in=SessionSpeaker.objects.filter(session_id__in=pks).values(
                        "speaker_id"
                    )
                ),
                "speaker_id",
            )
            for pk, speaker in speakers.items():
                speaker.prefetched_links = speaker_links.get(pk, [])
        return RelatedRows(appearances, links, attachments)


class RelatedRows(NamedTuple):
    """Sessions' related rows as objects, by session id, in the order exports list them."""

    speakers: dict[int, list[Speaker]]
    links: dict[int, list[tuple]]  # named tuples of SessionLink columns
    attachments: dict[int, list[Attachment]]


def model_object(model: type, columns: list[str], row: Iterable, **relations) -> object:
    """A model object holding ``row`` (the values of ``columns``, which follow the model's field
    order, as ``loaded_columns`` gives them), as a queryset loads it (``from_db``), with
    ``relations`` set as select_related sets them."""
    instance = model.from_db(router.db_for_read(model), columns, tuple(row))
    instance._state.fields_cache.update(relations)
    return instance


def grouped_objects(rows: QuerySet, owner: str = "session_id") -> dict[int, list]:
    """Every row of ``rows`` as an object, by its owner, in the order exports list them."""
    columns = loaded_columns(rows)
    groups = defaultdict(list)
    for row in rows.order_by(owner, "position", "pk").values_list(*columns):
        instance = model_object(rows.model, columns, row)
        groups[getattr(instance, owner)].append(instance)
    return groups


def in_batches(items: Iterable, size: int) -> Iterator[list]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def fragment_keys(
    conference: Conference, sessions: QuerySet, form: str, base_url: str
) -> dict[int, str] | None:
    """Each session's cache key, by pk in the order of ``sessions``: a digest of what its
    fragment shows (see above), read with one values query per kind of row. None past
    ``settings.EXPORT_FRAGMENT_MAX_SESSIONS`` sessions: those are not cached."""
    rows = sessions.prefetch_related(None).values_list(
        "pk", "guid", "version", "room__version", "track__version"
    )
    limit = settings.EXPORT_FRAGMENT_MAX_SESSIONS
    if limit is not None:
        rows = list(rows[: limit + 1])  # not 10,000 rows read to learn there are too many
        if len(rows) > limit:
            return None
    in_conference = {"session__conference": conference}
    speakers = grouped(
        SessionSpeaker.objects.filter(**in_conference)
        .order_by("session_id", "position", "pk")
        .values_list("session_id", "speaker_id", "speaker__version")
    )
    links = attachments = speaker_links = {}
    if form != "ics":  # the calendar shows no links, no attachments and no speakers' links
        links = grouped(stored_rows(SessionLink.objects.filter(**in_conference)))
        attachments = grouped(stored_rows(Attachment.objects.filter(**in_conference)))
        speaker_links = grouped(
            stored_rows(SpeakerLink.objects.filter(speaker__conference=conference), "speaker_id")
        )
    conference_fields = [
        getattr(conference, field.attname)
        for field in Conference._meta.concrete_fields
        if field.name != "changed_at"
    ]
    fragment_keys = FragmentKeys(f"export-{form}", (base_url, conference_fields))
    keys = {}
    for pk, *own in rows:
        speaker_parts = [
            (speaker, version, speaker_links.get(speaker, ()))
            for speaker, version in speakers.get(pk, ())
        ]
        keys[pk] = fragment_keys.key((pk, own, speaker_parts, links.get(pk), attachments.get(pk)))
    return keys


def stored_rows(rows: QuerySet, owner: str = "session_id") -> QuerySet:
    """Every column of ``rows``, the owner's id first, in the order exports list them."""
    names = [field.attname for field in rows.model._meta.concrete_fields]
    return rows.order_by(owner, "position", "pk").values_list(owner, *names)


def grouped(rows: Iterable[tuple]) -> dict[object, list[tuple]]:
    """Rows by their first column."""
    groups = defaultdict(list)
    for owner, *rest in rows:
        groups[owner].append(tuple(rest))
    return groups
