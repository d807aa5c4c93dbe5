"""Draw the installed web app's icons into static/icons/ (run again after changing a colour).

    .venv/bin/python docs/draw_icons.py

A calendar page with a star (a saved session) on the header's ink colour. The "any" icons have
rounded corners; the maskable one fills its square, the drawing kept inside the central 80 %
circle that every launcher's mask leaves visible (https://w3c.github.io/manifest/#icon-masks).
"""

import math
from pathlib import Path

from PIL import Image, ImageDraw

INK = "#1b1f24"  # --ink in static/css/site.css, also the manifest's theme colour
PAPER = "#ffffff"
ACCENT = "#b3261e"  # --accent
FOCUS = "#ffbf47"  # --focus
OUT = Path(__file__).resolve().parent.parent / "static" / "icons"


def star(cx: float, cy: float, outer: float) -> list[tuple[float, float]]:
    points = []
    for i in range(10):
        radius = outer if i % 2 == 0 else outer * 0.42
        angle = math.pi / 2 + i * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy - radius * math.sin(angle)))
    return points


def draw(size: int, *, maskable: bool) -> Image.Image:
    scale = 4  # drawn large, then shrunk: smooth edges without antialiasing support in ImageDraw
    big = size * scale
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if maskable:
        pen.rectangle((0, 0, big, big), fill=INK)
        inset = big * 0.26  # the calendar fits the safe circle (radius 40 % of the size)
    else:
        pen.rounded_rectangle((0, 0, big - 1, big - 1), radius=big * 0.18, fill=INK)
        inset = big * 0.16
    left, top, right, bottom = inset, inset * 1.08, big - inset, big - inset * 0.92
    corner = (right - left) * 0.1
    pen.rounded_rectangle((left, top, right, bottom), radius=corner, fill=PAPER)
    header = top + (bottom - top) * 0.26
    pen.rounded_rectangle((left, top, right, header), radius=corner, fill=ACCENT)
    pen.rectangle((left, header - corner, right, header), fill=ACCENT)
    ring_w, ring_h = (right - left) * 0.07, (bottom - top) * 0.16
    for x in (left + (right - left) * 0.28, left + (right - left) * 0.72):
        pen.rounded_rectangle(
            (x - ring_w / 2, top - ring_h / 2, x + ring_w / 2, top + ring_h / 2),
            radius=ring_w / 2,
            fill=INK,
        )
    cx, cy = (left + right) / 2, header + (bottom - header) / 2
    pen.polygon(star(cx, cy, (bottom - header) * 0.36), fill=FOCUS, outline=INK, width=scale * 2)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        draw(size, maskable=False).save(OUT / f"icon-{size}.png", optimize=True)
    draw(512, maskable=True).save(OUT / "icon-maskable-512.png", optimize=True)


if __name__ == "__main__":
    main()
