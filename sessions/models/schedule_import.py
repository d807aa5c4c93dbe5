"""Schedule imports: each uploaded file, and what the last import said of each row."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, gettext_lazy

from conference.models import Conference
from sessions.models.session import Session
from speakers.models import Speaker


class ImportedValues(models.Model):
    """What the schedule file said of one session or speaker at its last import, field by field.

    A re-import compares the file with it (sessions/importers/writer.py): a field the file still
    gives as it did then keeps its value here, which an organizer may have changed since; a field
    the file changed takes the file's value. A table of its own rather than a column: schedule
    pages and exports load every column of a session, and these values repeat its description.
    """

    session = models.OneToOneField(
        Session,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="imported_values",
        verbose_name=gettext_lazy("session"),
    )
    speaker = models.OneToOneField(
        Speaker,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="imported_values",
        verbose_name=gettext_lazy("speaker"),
    )
    # Field name to value as JSON: rooms and tracks by name, times in ISO 8601 UTC, speakers
    # by GUID (see writer.remembered()).
    values = models.JSONField(default=dict, verbose_name=gettext_lazy("values"))

    class Meta:
        verbose_name = gettext_lazy("imported values")
        verbose_name_plural = gettext_lazy("imported values")
        constraints = [
            models.CheckConstraint(
                condition=Q(session__isnull=False, speaker__isnull=True)
                | Q(session__isnull=True, speaker__isnull=False),
                name="imported_values_of_a_session_or_a_speaker",
                violation_error_message=gettext_lazy(
                    "Imported values belong to a session or a speaker."
                ),
            ),
        ]

    def __str__(self):
        return gettext("Imported values of %(object)s") % {"object": self.session or self.speaker}


class ScheduleImport(models.Model):
    """A schedule file uploaded on the admin's import page: checked (a preview), then confirmed.

    Both steps run the same import (sessions/importers/runs.py), in the request for a small
    file and in a task for a large one; the page shows where it stands and what it did.
    """

    class Status(models.TextChoices):
        CHECKING = "checking", gettext_lazy("Checking")
        CHECKED = "checked", gettext_lazy("Ready to confirm")
        REFUSED = "refused", gettext_lazy("Refused")
        IMPORTING = "importing", gettext_lazy("Importing")
        IMPORTED = "imported", gettext_lazy("Imported")
        FAILED = "failed", gettext_lazy("Not imported")

    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="schedule_imports",
        verbose_name=gettext_lazy("conference"),
    )
    file_name = models.CharField(max_length=255, verbose_name=gettext_lazy("file name"))
    # The file itself, kept for the confirm step: the database is the one store the site and
    # the task worker (possibly on another server) share; imports are 20 MB at most.
    data = models.BinaryField(verbose_name=gettext_lazy("data"))
    hold_conflicts = models.BooleanField(
        gettext_lazy("hold conflicts for review"),
        default=False,
        help_text=gettext_lazy(
            "Import every valid session; those that double-book a room or speaker or fall "
            "outside the conference's days wait unscheduled in the planner, with the reason."
        ),
    )
    status = models.CharField(
        max_length=20,
        choices=Status.choices,
        default=Status.CHECKING,
        verbose_name=gettext_lazy("status"),
    )
    # How many sessions the file holds: above a threshold each step runs in a task.
    session_count = models.PositiveIntegerField(
        default=0, verbose_name=gettext_lazy("session count")
    )
    in_background = models.BooleanField(default=False, verbose_name=gettext_lazy("in background"))
    # ImportReport.as_json() of the last step run, and why the file was refused, if it was.
    report = models.JSONField(default=dict, blank=True, verbose_name=gettext_lazy("report"))
    problems = models.JSONField(default=list, blank=True, verbose_name=gettext_lazy("problems"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("confirmed by"),
    )
    confirmed_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("confirmed at")
    )
    # When the step now running began, and when the last one ended.
    step_started_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("step started at")
    )
    finished_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("finished at")
    )
    # The uploader's language: both steps write the report and problems in it, in the request
    # or in the task worker, whoever confirms.
    language = models.CharField(
        max_length=10, default=settings.LANGUAGE_CODE, verbose_name=gettext_lazy("language")
    )

    class Meta:
        verbose_name = gettext_lazy("schedule import")
        verbose_name_plural = gettext_lazy("schedule imports")
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return gettext("%(file)s into %(conference)s") % {
            "file": self.file_name,
            "conference": self.conference,
        }

    @property
    def is_running(self) -> bool:
        return self.status in (self.Status.CHECKING, self.Status.IMPORTING)

    @property
    def can_confirm(self) -> bool:
        return self.status == self.Status.CHECKED
