import pytest
from django.core.cache import cache
from django.template.backends import jinja2 as jinja2_backend
from django.test.signals import template_rendered


@pytest.fixture(autouse=True, scope="session")
def jinja2_templates_report_their_context():
    """Let tests read ``response.context`` of Jinja2 pages, as they can of Django templates.

    Django's test runner instruments only its own template engine; this sends the same signal
    the test client listens to when a Jinja2 template renders.
    """
    render = jinja2_backend.Template.render

    def render_and_report(self, context=None, request=None):
        context = {} if context is None else context
        template_rendered.send(sender=self, template=self, context=context)
        return render(self, context, request)

    jinja2_backend.Template.render = render_and_report
    yield
    jinja2_backend.Template.render = render


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    """Production settings use hashed static files, which need collectstatic; tests use plain names."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def empty_cache():
    """Shared pages and login counts live in the cache; each test starts without them."""
    cache.clear()
    yield
    cache.clear()
