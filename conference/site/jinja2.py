"""The template engine of every attendee page: Jinja2, through Django's own backend.

Chosen over Django's template language for speed: a schedule renders a card per session, and
Jinja2 renders them about twice as fast (bench/results/). Autoescaping is on, as in Django
templates. The admin, and the API docs page, keep Django's templates.

What Django templates get from tags, pages get here as globals and filters.
"""

import datetime
import re

import jinja2
from django.conf import settings
from django.http import QueryDict
from django.template.defaultfilters import date, pluralize
from django.templatetags.static import static
from django.urls import NoReverseMatch, reverse
from django.utils import timezone, translation
from django_htmx.jinja import htmx_script
from jinja2 import Environment, StrictUndefined
from markupsafe import Markup

from conference.i18n.timezones import local_clock, short_date, time_range, time_zone_options
from conference.markup import render_markdown
from conference.pages.holes import check_plain, hole_data, page_context
from conference.routing import reverse_slugs
from sessions.cfp.co_speaker_views import co_speaker_panel_for
from sessions.views.cards import SessionCards

# What reverse_slugs() can format without quoting: Django's slug converter's characters.
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def url(name: str, *args, **kwargs) -> str:
    """reverse(), through ``reverse_slugs`` when every argument is a slug (most are).

    Every page's navigation, head and footer reverse about fifteen routes, and a list page one
    or more per card: reverse() is run once per route, then formatted.
    """
    if not args and all(
        isinstance(value, str) and SLUG.fullmatch(value) for value in kwargs.values()
    ):
        try:
            return reverse_slugs(name, **kwargs)
        except NoReverseMatch:
            pass  # a route whose pattern takes no placeholder (digits only, say): reversed below
    return reverse(name, args=args or None, kwargs=kwargs or None)


def querystring(query: QueryDict, **changes) -> str:
    """``query`` with ``changes`` applied (None removes a parameter), as "?a=1&b=2"."""
    query = query.copy()
    for name, value in changes.items():
        if value is None:
            query.pop(name, None)
        else:
            query.setlist(name, value if isinstance(value, list) else [value])
    return f"?{query.urlencode()}"


class Template(jinja2.Template):
    """Jinja2's template, telling ``personal()`` which page it renders."""

    def render(self, *args, **kwargs) -> str:
        context = self.new_context(dict(*args, **kwargs))
        token = page_context.set(context)
        try:
            return self.environment.concat(self.root_render_func(context))
        except Exception:
            self.environment.handle_exception()
        finally:
            page_context.reset(token)


def personal(template_name: str, **data) -> Markup:
    """A part of the page that belongs to the visitor: their account links, a Save button.

    On a page rendered for the shared cache this leaves a hole that conference.pages fills
    per request from ``template_name`` and ``data`` (kept in the cache, so plain values only:
    anything else is refused here, however the page is rendered, see ``check_plain``).
    Anywhere else it renders that template here, with the page's context.
    """
    check_plain(template_name, data)
    context = page_context.get()
    recorder = context.get("hole_recorder")
    if recorder is not None:
        return Markup(recorder.add(template_name, data))
    template = context.environment.get_template(template_name)
    return Markup(template.render({**context.get_all(), **hole_data(template_name, data, context)}))


def clock(value: datetime.datetime | None, zone: datetime.tzinfo | None = None) -> str:
    """10:35, in ``zone`` or else the active zone."""
    return local_clock(timezone.localtime(value, zone)) if value else ""


def clock_zone(value: datetime.datetime | None, zone: datetime.tzinfo | None = None) -> str:
    """10:35 CEST: with the abbreviation in force then, so the repeated autumn hour is told apart.

    (Django's ``time:"T"`` prints nothing during that hour.)
    """
    if not value:
        return ""
    local = timezone.localtime(value, zone)
    return f"{local_clock(local)} {local.tzname()}"


def clock_on(value: datetime.datetime, today: datetime.date) -> str:
    """10:35 CEST when that is on ``today`` in the active zone, else “Wednesday 8 April, 10:35 CEST”."""
    return f"{other_day(value, today)}{clock_zone(value)}"


def other_day(value: datetime.datetime, today: datetime.date) -> str:
    """“Wednesday 8 April, ” when ``value`` falls on another day than ``today`` in the active
    zone, else nothing: the prefix of a time that may be today or later."""
    local = timezone.localtime(value)
    return "" if local.date() == today else f"{date(local, 'l j F')}, "


def local_date(value, format_string: str | None = None) -> str:
    """Django's ``date`` filter, in the active zone, as Django templates apply it."""
    return date(timezone.template_localtime(value), format_string)


def short_day(value: datetime.datetime) -> str:
    """“Wed 8 Apr”, “mer. 8 avr.”: the day of ``value`` in the active zone, year left out."""
    return short_date(timezone.template_localtime(value), weekday=True, year=False)


def markdown(text: str) -> Markup:
    # Safe: nh3 has removed everything outside the allow-list.
    return Markup(render_markdown(text))


def environment(**options) -> Environment:
    # Plain-text templates (mail subjects) are not HTML: escaping them would show "&amp;".
    options["autoescape"] = lambda name: not (name or "").endswith(".txt")
    extensions = [*options.pop("extensions", []), "jinja2.ext.i18n"]
    env = Environment(
        **{
            **options,
            "undefined": StrictUndefined,
            # The line break after a block tag goes, {% endtrans %} included: a mail's text
            # part ends such a line with "+%}" to keep it (tests/conference/test_mail_templates.py).
            "trim_blocks": True,
            "lstrip_blocks": True,
            "extensions": extensions,
        }
    )
    env.template_class = Template
    # {{ _("Save") }} and {% trans %}…{% endtrans %} through Django's catalogues and active
    # language (docs/i18n.md); a {% trans %} block's line breaks and indents fold to one space,
    # so its msgid reads as one line, as the babel.cfg extraction sees it.
    env.install_gettext_translations(translation, newstyle=True)
    env.policies["ext.i18n.trimmed"] = True
    env.globals.update(
        url=url,
        static=static,
        querystring=querystring,
        personal=personal,
        session_cards=SessionCards,
        co_speaker_panel=co_speaker_panel_for,
        htmx_script=htmx_script,
        time_zone_options=time_zone_options,
        get_language=translation.get_language,
        languages=settings.LANGUAGES,
    )
    env.filters.update(
        clock=clock,
        clock_on=clock_on,
        other_day=other_day,
        clock_zone=clock_zone,
        date=local_date,
        short_day=short_day,
        markdown=markdown,
        pluralize=pluralize,
        time_range=time_range,
    )
    return env
