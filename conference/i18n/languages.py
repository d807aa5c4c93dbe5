"""Which language a visitor reads the site in (docs/i18n.md).

Django's LocaleMiddleware activates the language the visitor chose with the switcher (its
cookie), else the first of their browser's Accept-Language we have, else LANGUAGE_CODE. On a
conference's pages that last fallback is the conference's own language instead: a visitor who
expressed no preference we can meet reads a French conference in French.
"""

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header


def preferred_language(request: HttpRequest) -> str | None:
    """The language the visitor asked for, by cookie or Accept-Language, if we have it."""
    asked = [request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) or ""]
    asked += [
        code for code, _ in parse_accept_lang_header(request.headers.get("Accept-Language", ""))
    ]
    for code in asked:
        if code and code != "*":
            try:
                return translation.get_supported_language_variant(code)
            except LookupError:
                continue
    return None


def activate_conference_language(request: HttpRequest, language: str) -> None:
    """Show a conference's pages in ``language`` unless the visitor asked for one we have."""
    if preferred_language(request) is None:
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
