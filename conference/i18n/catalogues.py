"""Our translation catalogues (docs/i18n.md): extracted, merged and compiled with Babel.

Babel reads our Jinja2 templates (Django's makemessages reads only Django templates) and
compiles .mo files in pure Python, so a clean machine needs no GNU gettext.

    python -m conference.i18n.catalogues update    # after changing strings: .pot and .po files
    python -m conference.i18n.catalogues compile   # .po -> .mo (make run / make test do it)
"""

import io
import itertools
import sys
from pathlib import Path

from babel.messages.extract import extract_python
from babel.messages.frontend import CommandLineInterface

ROOT = Path(__file__).resolve().parent.parent.parent
LOCALE = ROOT / "locale"
# Each domain and its extraction rules: pages and Python, and our JavaScript (the planner's).
DOMAINS = {"django": "babel.cfg", "djangojs": "babel-js.cfg"}
LANGUAGES = ["fr"]  # English is the source language: its msgids are the text
# Django's lazy and contextual functions, beside Babel's defaults (_, gettext, ngettext, ...).
KEYWORDS = ["gettext_lazy", "ngettext_lazy:1,2", "pgettext:1c,2", "pgettext_lazy:1c,2"]
KEYWORDS += ["npgettext:1c,2,3", "npgettext_lazy:1c,2,3", "format_lazy"]


def extract_django(fileobj, keywords, comment_tags, options):
    """Babel's extraction for Django templates (the admin's): Django's own ``templatize``, which
    makemessages uses, turns {% translate %} and {% blocktranslate %} into gettext calls that
    Babel's Python extraction reads."""
    from django.utils.translation.template import templatize

    # Each line without its indent: Python's tokenizer would refuse the template's.
    source = "\n".join(line.lstrip() for line in templatize(fileobj.read().decode()).splitlines())
    yield from extract_python(io.BytesIO(source.encode()), keywords, comment_tags, options)


def babel(*arguments: str) -> None:
    CommandLineInterface().run(["pybabel", "--quiet", *arguments])


def extract(template: Path, domain: str = "django") -> None:
    """Every msgid of ``domain`` in our code and templates into ``template`` (a .pot file)."""
    template.parent.mkdir(parents=True, exist_ok=True)
    keywords = [argument for keyword in KEYWORDS for argument in ("-k", keyword)]
    babel(
        "extract", "-F", str(ROOT / DOMAINS[domain]), *keywords, "--no-location", "--sort-output",
        "--omit-header", "--add-comments", "Translators:", "-o", str(template), str(ROOT),
    )  # fmt: skip


def update() -> None:
    """Re-extract, then merge into each language's .po (new msgids empty, old ones dropped)."""
    for domain in DOMAINS:
        update_domain(domain)


def update_domain(domain: str) -> None:
    template = LOCALE / f"{domain}.pot"
    extract(template, domain)
    for language in LANGUAGES:
        catalogue = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
        command = "update" if catalogue.exists() else "init"
        babel(
            command, "-i", str(template), "-d", str(LOCALE), "-D", domain, "-l", language,
            # Unchanged strings leave the .po as it was (no new POT-Creation-Date to commit).
            *(
                ["--no-fuzzy-matching", "--ignore-obsolete", "--ignore-pot-creation-date"]
                if command == "update"
                else []
            ),
        )  # fmt: skip


def compile_all() -> None:
    for domain in DOMAINS:
        babel("compile", "-d", str(LOCALE), "-D", domain)


def compile_stale() -> None:
    """Compile when a .mo is missing or older than its .po."""
    for language, domain in itertools.product(LANGUAGES, DOMAINS):
        source = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
        compiled = source.with_suffix(".mo")
        if not compiled.exists() or compiled.stat().st_mtime < source.stat().st_mtime:
            compile_all()
            return


if __name__ == "__main__":
    {"update": update, "compile": compile_all}[sys.argv[1]]()
