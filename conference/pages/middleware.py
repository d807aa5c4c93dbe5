"""No cache in front keeps an answer meant for one visitor."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse

# Cache-Control directives that let a shared cache (nginx, a CDN) keep an answer.
SHARED_DIRECTIVES = {"public", "s-maxage", "stale-while-revalidate", "private"}


class PrivateForSessionsMiddleware:
    """Any answer to a request that carries a session cookie, or that sets one, is ``private``.

    A session may be logged in, hold messages or a CSRF secret: what the view did with it is
    not for this middleware to guess. Placed first after the static files, so it sees every
    other middleware's headers.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        name = settings.SESSION_COOKIE_NAME
        if name in request.COOKIES or name in response.cookies:
            kept = [
                directive.strip()
                for directive in response.get("Cache-Control", "").split(",")
                if directive.strip()
                and directive.split("=")[0].strip().lower() not in SHARED_DIRECTIVES
            ]
            response["Cache-Control"] = ", ".join(["private", *kept])
        return response
