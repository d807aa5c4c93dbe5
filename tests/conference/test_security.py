import os
import secrets
import subprocess
import sys

import pytest

from tests.builders import make_conference, make_session

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/pycon/", "/pycon/schedule/", "/accounts/login/", "/admin/login/"]
)
def test_html_responses_carry_the_security_headers(client, path):
    make_session(make_conference(slug="pycon"))
    response = client.get(path)
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy
    assert "style-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


def test_deploy_check_passes_with_the_documented_production_settings():
    # Without the browser tests' DJANGO_ALLOW_ASYNC_UNSAFE (tests/browser/conftest.py), which
    # the deploy check rightly refuses: it is set for the session once a browser test has run.
    inherited = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {
        **inherited,
        "DJANGO_DEBUG": "0",
        "DJANGO_HTTPS": "1",
        "DJANGO_BEHIND_PROXY": "1",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "schedule.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_api_docs_page_allows_inline_styles_but_no_inline_script(client):
    policy = client.get("/api/docs/")["Content-Security-Policy"]
    assert "style-src 'self' 'unsafe-inline'" in policy
    assert "script-src 'self';" in policy + ";"
