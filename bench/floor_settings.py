"""Production settings with the floor's views beside the site's own (bench/floor.py)."""

from conference.site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor_urls"
