# Two commands set everything up from a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# The public address links and calendar UIDs are built from (docs/deploy.md).
export DJANGO_SITE_URL ?= http://127.0.0.1:$(PORT)
MANAGE := $(BIN)/python manage.py

.PHONY: run serve front test lint format bench load clean catalogues

# Local development settings, git-ignored: debug on and a secret key of this clone's own.
# settings.py reads the file wherever it starts (variables set in the environment win), so every
# manage.py command runs like `make run`; the test suite ignores it. Delete it to get a new key.
.env.local:
	umask 077 && printf '%s\n' \
		'# Written by make run for local development; not for production (see README.md).' \
		'DJANGO_DEBUG=1' \
		"DJANGO_SECRET_KEY=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')" > $@

# Runtime packages only, for `make run`.
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $@

# Runtime plus test and lint tools, for `make test`.
$(VENV)/.installed-dev: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(VENV)/.installed $@

# Translations (docs/i18n.md): the compiled catalogue is built here, in pure Python (Babel), from
# the .po that git keeps; `make catalogues` re-extracts the strings after code or templates change.
MO := locale/fr/LC_MESSAGES/django.mo locale/fr/LC_MESSAGES/djangojs.mo
locale/fr/LC_MESSAGES/%.mo: locale/fr/LC_MESSAGES/%.po $(VENV)/.installed
	$(BIN)/python -m conference.i18n.catalogues compile

catalogues: $(VENV)/.installed
	$(BIN)/python -m conference.i18n.catalogues update

# Two task workers run beside the server, on the same database: no other service. One for the
# "default" queue (mails, imports), one for "webhooks" (deliveries), so a slow receiver never holds
# up a mail; run_task_workers starts both and starts again one that exits, and each waits out a
# locked database (conference/site/workers.py). Beside them, fail_lost_tasks marks failed, every
# 5 minutes, a task whose worker was killed mid-way. Ctrl-C reaches them all; however the server stops, the trap stops the others too
# (one still starting up ignores the terminal's Ctrl-C, as background commands of a script do).
run: $(VENV)/.installed .env.local $(MO)
	$(MANAGE) migrate --no-input
	$(MANAGE) load_demo --port $(PORT)
	$(MANAGE) run_task_workers & workers=$$!; \
	$(MANAGE) fail_lost_tasks --every 300 & watcher=$$!; \
	trap 'kill $$workers $$watcher 2>/dev/null; wait $$workers $$watcher' EXIT INT TERM; \
	$(MANAGE) runserver 127.0.0.1:$(PORT)

# Production-like: gunicorn with 2 workers per core (+1), and beside it the task workers (mails,
# webhooks) and fail_lost_tasks as in `make run`; debug off, hashed and compressed static files served by
# whitenoise, persistent database connections. Set DJANGO_SECRET_KEY (a random
# one is made and kept in .venv/secret_key, readable by its owner only, otherwise), DATABASE_URL and
# REDIS_URL as in docs/deploy.md. Without REDIS_URL, limits are counted where all the workers see
# them: in a database table that migrate creates, or on SQLite in files in db.sqlite3.limits/.
serve: export DJANGO_DEBUG = 0
serve: export DJANGO_CONN_MAX_AGE ?= 60
serve: $(VENV)/.installed $(MO)
	test -s $(VENV)/secret_key || (umask 077 && $(BIN)/python -c "import secrets; print(secrets.token_urlsafe(50))" > $(VENV)/secret_key)
	chmod 600 $(VENV)/secret_key
	DJANGO_SECRET_KEY="$${DJANGO_SECRET_KEY:-$$(cat $(VENV)/secret_key)}" $(MANAGE) migrate --no-input
	DJANGO_SECRET_KEY="$${DJANGO_SECRET_KEY:-$$(cat $(VENV)/secret_key)}" $(MANAGE) collectstatic --no-input --verbosity 0
	DJANGO_SECRET_KEY="$${DJANGO_SECRET_KEY:-$$(cat $(VENV)/secret_key)}" $(MANAGE) load_demo --port $(PORT)
	export DJANGO_SECRET_KEY="$${DJANGO_SECRET_KEY:-$$(cat $(VENV)/secret_key)}"; \
	$(MANAGE) run_task_workers & workers=$$!; \
	$(MANAGE) fail_lost_tasks --every 300 & watcher=$$!; \
	trap 'kill $$workers $$watcher 2>/dev/null; wait $$workers $$watcher' EXIT INT TERM; \
	$(BIN)/gunicorn conference.site.wsgi \
		--workers $$(( $$(nproc) * 2 + 1 )) --bind 127.0.0.1:$(PORT) \
		--access-logfile - --graceful-timeout 20 --limit-request-line 8190

# nginx in front of `make serve` (start that first, in another terminal): a few seconds of
# micro-cache for the pages anonymous visitors share, static files from staticfiles/, gzip
# (deploy/nginx.conf; docs/deploy.md, "nginx in front"). It listens on 127.0.0.1:$(FRONT_PORT)
# and passes requests to gunicorn on 127.0.0.1:$(PORT), e.g. `make front FRONT_PORT=8081`; its
# copy of the config, pid file, temporary files and cache live in .nginx/ (git-ignored).
# Ctrl-C stops it. Debian's nginx lives in /usr/sbin, often not on a user's PATH.
FRONT_PORT ?= 8080
NGINX ?= $(shell command -v nginx || echo /usr/sbin/nginx)
front:
	mkdir -p .nginx
	sed -e 's/listen 127.0.0.1:8080;/listen 127.0.0.1:$(FRONT_PORT);/' \
		-e 's/server 127.0.0.1:8000;/server 127.0.0.1:$(PORT);/' deploy/nginx.conf > .nginx/nginx.conf
	$(NGINX) -p "$(CURDIR)" -c .nginx/nginx.conf -e stderr

# Development JavaScript tools (axe-core for the accessibility tests), exactly as package-lock.json
# pins them; installed again whenever the lock file changes. The site itself serves no npm code.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# The suite runs with production settings (debug off, .env.local ignored): they need a secret key.
# One pytest worker per core (pytest-xdist), each with its own test database; a module's tests
# stay on one worker, so module-scoped data and servers are set up once. TEST_WORKERS=0: one
# process. `make test PYTEST_ARGS='-m browser'` runs one marker (docs/testing.md).
TEST_WORKERS ?= auto
test: export DJANGO_SECRET_KEY ?= test-only-secret-key
test: $(VENV)/.installed-dev node_modules/.installed $(MO)
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.installed-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Pages, exports and API in-process at 30 to 10,000 sessions; at 1,000 the same served over HTTP as
# `make serve` serves it, alone and behind deploy/nginx.conf (local memory and Redis); a worker's
# memory at 10,000; the floor under the cached-page targets (bench/floor.py); then the import of a
# 1,000-session file. Each target marked met or missed in bench/results/latest*.md (bench/README.md;
# 10 to 20 minutes). Not run in CI.
# `make bench BENCH_ARGS=--quick` for sizes 30 and 300 only, in-process.
BENCH_ARGS ?= --http
bench: $(VENV)/.installed-dev
	$(BIN)/python bench/run.py $(BENCH_ARGS)
	$(BIN)/python bench/floor.py
	$(BIN)/python bench/import_schedule.py

# A bounded wrk run of the schedule page and the save endpoint under gunicorn on PostgreSQL
# (127.0.0.1 only); checks that every save is in the database afterwards.
load: $(VENV)/.installed-dev
	$(BIN)/python bench/load.py $(LOAD_ARGS)

clean:
	rm -rf $(VENV) node_modules staticfiles .pytest_cache .ruff_cache
