"""The Jinja2 environment for the few fragments a page repeats hundreds of times (session cards).

Django's own template language renders a card in about a millisecond; a 1,000-session schedule
cannot afford that. Jinja2 compiles templates to Python and renders the same card several times
faster, with the same autoescaping. Pages themselves stay in Django templates.
"""

from django.template.defaultfilters import date
from jinja2 import Environment, StrictUndefined

from conference.templatetags.zones import clock, clock_zone


def environment(**options) -> Environment:
    env = Environment(**{**options, "undefined": StrictUndefined})
    env.filters.update(clock=clock, clock_zone=clock_zone, date=date)
    return env
