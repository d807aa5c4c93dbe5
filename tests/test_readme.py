"""README.md's commands work as written, from a fresh clone's point of view.

The rule: a fenced block tagged ``sh`` holds commands a newcomer types, and every one of them must
work. README tags no block ``bash``, ``console``, ``shell`` or ``zsh``: a command that is not meant
to run as written goes in the text. Each ``sh`` block runs in one bash, in README order, from the
project folder, so a block may set a variable (``TOKEN=...``) that its later commands use; every
command must exit 0, and every ``curl`` must pass ``-f``, so an HTTP error fails it too. Addresses
are written ``http://127.0.0.1:8000``: the test serves on a free port instead.

The database is a new SQLite file in a temporary folder, with production settings (debug off, a
secret key in the environment, any ``.env.local`` ignored). Two commands are not run as typed:

- ``make run`` runs its own recipe in the background, with ``.venv`` and ``.env.local`` taken as
  up to date (``make -o``): the .venv exists already and must not be reinstalled here, and
  ``.env.local`` would turn debug on. Debug off needs collected static files, so they are
  collected first into the temporary folder, as ``make serve`` does.
- ``make test`` is skipped: it runs this very suite.

Any other ``make`` target fails the test until this module knows how to run it.
"""

import http.client
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

PROJECT = Path(__file__).resolve().parents[1]
README = PROJECT / "README.md"
README_ADDRESS = "127.0.0.1:8000"
BLOCK = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELL_TAGS = {"bash", "console", "shell", "shell-session", "zsh"}
ADDRESS = re.compile(r"http://127\.0\.0\.1:8000/[^\s<>()\[\]\"'`]*")
FAILED = "README command failed:"


def readme_blocks() -> list[tuple[str, str]]:
    """Each fenced block of README.md as (tag, text)."""
    return BLOCK.findall(README.read_text(encoding="utf-8"))


def commands(block: str) -> list[str]:
    """A block's commands: its lines, a line ending in a backslash joined with the next."""
    found, current = [], ""
    for line in block.splitlines():
        current += line
        if current.endswith("\\"):
            current += "\n"
            continue
        if current.strip() and not current.lstrip().startswith("#"):
            found.append(current)
        current = ""
    return found


def make_target(command: str) -> list[str] | None:
    """``make`` and its arguments when the command is a make command, else None."""
    words = shlex.split(command, comments=True)
    return words[1:] if words and words[0] == "make" else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class BlockRun:
    commands: list[str]
    returncode: int
    stdout: str
    stderr: str

    def failed_command(self) -> str | None:
        for line in self.stderr.splitlines():
            if line.startswith(FAILED):
                return self.commands[int(line.removeprefix(FAILED).split()[0])]
        return None


class ReadmeRun:
    """Runs README's ``sh`` blocks in order against one fresh database and one server."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.port = free_port()
        self.server: subprocess.Popen | None = None
        self.server_log = folder / "make-run.log"
        self.blocks: list[BlockRun] = []
        inherited = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(("DJANGO_", "PYTEST_", "MAKE"))
            and name not in ("DATABASE_URL", "REDIS_URL", "MFLAGS")
        }
        self.environment = inherited | {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "readme-test-secret-key",
            "DJANGO_ENV_FILE": str(folder / "no.env"),
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "DJANGO_STATIC_ROOT": str(folder / "static"),
            "DJANGO_MEDIA_ROOT": str(folder / "media"),
            "DJANGO_SITE_URL": f"http://127.0.0.1:{self.port}",
        }

    def here(self, text: str) -> str:
        return text.replace(README_ADDRESS, f"127.0.0.1:{self.port}")

    def run_all(self) -> None:
        for tag, block in readme_blocks():
            if tag != "sh":
                continue
            found = commands(block)
            targets = [make_target(command) for command in found]
            if any(target is not None for target in targets):
                assert all(target is not None for target in targets), (
                    f"Keep make commands in a block of their own:\n{block}"
                )
                for target in targets:
                    self.make(target)
            else:
                self.blocks.append(self.run_block(found))

    def make(self, arguments: list[str]) -> None:
        target = arguments[0] if arguments else ""
        if target == "test":
            return  # The suite this test belongs to: not run from inside itself.
        if target != "run":
            pytest.fail(f"README runs `make {' '.join(arguments)}`: teach tests/test_readme.py")
        assert self.server is None, "README starts `make run` twice"
        subprocess.run(
            [".venv/bin/python", "manage.py", "collectstatic", "--no-input", "--verbosity", "0"],
            cwd=PROJECT,
            env=self.environment,
            check=True,
            timeout=120,
        )
        with self.server_log.open("wb") as log:
            self.server = subprocess.Popen(
                ["make", "-o", ".venv/.installed", "-o", ".env.local", *arguments],
                cwd=PROJECT,
                env=self.environment | {"PORT": str(self.port)},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: make, the worker, the server
            )
        self.wait_until_serving()

    def wait_until_serving(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                pytest.fail(f"`make run` exited:\n{self.server_log.read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)  # polling for start-up, not waiting for a result
        pytest.fail(f"`make run` did not listen within {timeout} s:\n{self.server_log.read_text()}")

    def run_block(self, found: list[str]) -> BlockRun:
        script = ["set -u -o pipefail"]
        for index, command in enumerate(found):
            # The check on a line of its own, so that a trailing comment cannot swallow it.
            check = f'echo "{FAILED} {index} (exit $status)" >&2; exit "$status"'
            script += [self.here(command), f'status=$?; [ "$status" -eq 0 ] || {{ {check}; }}']
        result = subprocess.run(
            ["bash", "-c", "\n".join(script)],
            cwd=PROJECT,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return BlockRun(found, result.returncode, result.stdout, result.stderr)

    def stop(self) -> None:
        """Stops make, the task worker and the server: the whole process group, whatever is left."""
        if self.server is None:
            return
        group = self.server.pid
        self.signal_group(group, signal.SIGTERM)
        try:
            self.server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.signal_group(group, signal.SIGKILL)
            self.server.wait()
        # The worker finishes its task in hand on SIGTERM; what outlives make is killed.
        deadline = time.monotonic() + 15
        while self.signal_group(group, 0) and time.monotonic() < deadline:
            time.sleep(0.1)  # polling for the processes to end
        self.signal_group(group, signal.SIGKILL)

    @staticmethod
    def signal_group(group: int, number: int) -> bool:
        """Sends the signal to the group; False when no process is left in it."""
        try:
            os.killpg(group, number)
        except ProcessLookupError:
            return False
        return True


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory):
    if "sqlite" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("README's commands run on SQLite; the suite's SQLite run checks them")
    missing = [tool for tool in ("make", "curl", "bash") if shutil.which(tool) is None]
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must check README's commands: {', '.join(missing)} missing")
        pytest.skip(f"needs {', '.join(missing)}")
    run = ReadmeRun(tmp_path_factory.mktemp("readme"))
    try:
        run.run_all()
        yield run
    finally:
        run.stop()


def test_readme_shell_blocks_follow_the_rules_the_run_relies_on():
    blocks = readme_blocks()
    assert [tag for tag, _ in blocks if tag in SHELL_TAGS] == []
    found = [command for tag, block in blocks if tag == "sh" for command in commands(block)]
    assert found, "README shows no command"
    for command in found:
        words = shlex.split(command, comments=True)
        if "curl" in words:
            flags = [word for word in words if word.startswith("-") and not word.startswith("--")]
            assert "--fail" in words or any("f" in flag for flag in flags), command
        assert ":8000" not in command.replace(README_ADDRESS, ""), command


def test_readme_commands_work_on_a_fresh_database(readme_run):
    assert readme_run.blocks, "README has no sh block besides make"
    for block in readme_run.blocks:
        assert block.returncode == 0, (
            f"{block.failed_command() or block.commands}\n"
            f"stdout:\n{block.stdout[-2000:]}\nstderr:\n{block.stderr[-2000:]}"
        )


def test_readme_addresses_answer(readme_run):
    text = BLOCK.sub("", README.read_text(encoding="utf-8"))  # the text, without its blocks
    addresses = sorted(set(ADDRESS.findall(text)))
    assert addresses, "README names no address of the running site"
    answers = {}
    for address in addresses:
        connection = http.client.HTTPConnection("127.0.0.1", readme_run.port, timeout=30)
        connection.request("GET", address.removeprefix(f"http://{README_ADDRESS}"))
        answers[address] = connection.getresponse().status
        connection.close()
    assert {address: status for address, status in answers.items() if status >= 400} == {}
