"""The admin's change forms as an organizer's browser posts them."""

from html.parser import HTMLParser


class FormValues(HTMLParser):
    """What a browser would submit from the page's forms if nothing were changed on them."""

    def __init__(self):
        super().__init__()
        self.data: dict[str, str | list[str]] = {}
        self.select: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = attrs.get("name")
        if tag == "input" and name:
            kind = attrs.get("type", "text")
            if kind in {"checkbox", "radio"} and "checked" not in attrs:
                return
            if kind not in {"file", "submit", "button"}:
                self.add(name, attrs.get("value") or ("on" if kind == "checkbox" else ""))
        elif tag == "select" and name:
            self.select = name
        elif tag == "option" and self.select and "selected" in attrs:
            self.add(self.select, attrs.get("value", ""))
        elif tag == "textarea" and name:
            self.textarea = name
            self.data[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def handle_data(self, data):
        if self.textarea:
            self.data[self.textarea] += (
                data.removeprefix("\n") if not self.data[self.textarea] else data
            )

    def add(self, name: str, value: str) -> None:
        if name in self.data:  # a multiple select
            previous = self.data[name]
            self.data[name] = [*(previous if isinstance(previous, list) else [previous]), value]
        else:
            self.data[name] = value


def opened_change_form(admin_client, url: str) -> dict:
    """What the change form at ``url``, opened now, posts back if nothing is changed on it.

    Read from the page as a browser reads it (hidden fields and inline rows included), so a
    test can open a page, let someone else save, and post the page later.
    """
    parser = FormValues()
    parser.feed(admin_client.get(url).content.decode())
    return {
        name: value
        for name, value in parser.data.items()
        if name != "csrfmiddlewaretoken" and "__prefix__" not in name
    }
