"""How schedule.xml writes its parts (sessions/exports/frab_schedule.py writes the document): an
event's element, and text and attributes escaped as XML 1.0 allows."""

import re
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

# Submission codes as the XSD accepts them (pretalx's six characters).
XML_SUBMISSION_CODE = re.compile(r"[0-9A-Z]{6}")
# Characters XML 1.0 allows nowhere, not even escaped: dropped from text and attributes.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_event_text(event: dict) -> bytes:
    return "\n".join(xml_event(event)).encode()


def xml_event(event: dict) -> list[str]:
    identity = {"guid": event["guid"], "id": event["id"]}
    if XML_SUBMISSION_CODE.fullmatch(event.get("code", "")):
        identity["code"] = event["code"]
    lines = [f"      <event{xml_attributes(**identity)}>"]
    for tag in ("date", "start", "duration", "room", "slug", "url", "title", "type", "abstract"):
        lines.append(f"        <{tag}>{xml_text(event[tag])}</{tag}>")
    for tag in ("subtitle", "language", "description", "logo", "feedback_url", "origin_url"):
        if event.get(tag):
            lines.append(f"        <{tag}>{xml_text(event[tag])}</{tag}>")
    lines.append(f"        <track>{xml_text(event['track'] or '')}</track>")
    # Always written, so a do-not-record mark is never left to a reader's default.
    optout = "true" if event["do_not_record"] else "false"
    lines.append(
        f"        <recording><license>{xml_text(event['recording_license'])}</license>"
        f"<optout>{optout}</optout></recording>"
    )
    persons = [
        f"          <person{xml_attributes(guid=person['guid'])}>{xml_text(person['name'])}</person>"
        for person in event["persons"]
    ]
    links, attachments = (
        [
            f"          <{tag}{xml_attributes(href=item['url'], **type_of(item))}>"
            f"{xml_text(item['title'])}</{tag}>"
            for item in event[key]
        ]
        for tag, key in (("link", "links"), ("attachment", "attachments"))
    )
    lines += (
        xml_list("persons", persons)
        + xml_list("links", links)
        + xml_list("attachments", attachments)
    )
    lines.append("      </event>")
    return lines


def type_of(item: dict) -> dict:
    return {"type": item["type"]} if "type" in item else {}


def xml_list(tag: str, children: list[str]) -> list[str]:
    if not children:
        return [f"        <{tag} />"]
    return [f"        <{tag}>", *children, f"        </{tag}>"]


# What xml_text and xml_attributes would change: most values hold none of it and go as they are.
# One search instead of a substitution and three replacements, for each of an event's values.
_XML_TEXT_WORK = re.compile("[&<>\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_XML_ATTRIBUTE_WORK = re.compile('[&<>"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')


def xml_text(value: object) -> str:
    value = str(value)
    if _XML_TEXT_WORK.search(value) is None:
        return value
    # Control characters are not allowed anywhere in XML 1.0, even escaped. A parser turns a raw
    # carriage return (and CR LF) into a line feed, so it is written as a reference to survive.
    return xml_escape(_XML_ILLEGAL.sub("", value), {"\r": "&#13;"})


def xml_attribute(value: object) -> str:
    value = str(value)
    if _XML_ATTRIBUTE_WORK.search(value) is None:
        return f'"{value}"'
    return quoteattr(_XML_ILLEGAL.sub("", value))


def xml_attributes(**attributes: object) -> str:
    return "".join(f" {name}={xml_attribute(value)}" for name, value in attributes.items())
