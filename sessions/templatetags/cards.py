"""Session cards, rendered by Jinja2 for speed (see conference/jinja2.py).

Safe to mark safe: Jinja2 autoescapes every value in the cards.
"""

from functools import cache

from django import template
from django.template import engines
from django.utils import timezone
from django.utils.safestring import mark_safe

register = template.Library()


def jinja_template(name: str):
    return engines["jinja2"].env.get_template(name)


@cache
def cards():
    """The macros of sessions/cards.html."""
    return jinja_template("sessions/cards.html").module


@register.simple_tag
def session_card(session):
    return mark_safe(cards().session_card(session))


@register.simple_tag
def schedule_days(days):
    """The whole schedule list in one Jinja2 call: a thousand separate card renders cost a tenth
    of the page."""
    template = jinja_template("sessions/schedule_days.html")
    return mark_safe(template.render(days=days, zone=timezone.get_current_timezone()))
