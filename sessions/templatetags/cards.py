from functools import cache

from django import template
from django.template import engines
from django.utils.safestring import mark_safe

register = template.Library()


@cache
def card_template():
    return engines["jinja2"].get_template("sessions/session_card.html").template


@register.simple_tag
def session_card(session):
    """The session card, rendered by Jinja2 for speed (see conference/jinja2.py)."""
    # Safe: Jinja2 autoescapes every value in the card.
    return mark_safe(card_template().render(session=session))
