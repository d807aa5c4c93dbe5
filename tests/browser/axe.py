"""axe-core in the browser tests: the npm package `make test` installs (package.json)."""

from pathlib import Path

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(page, axe_source: str) -> str:
    """What axe finds on the page as it is now, described for an assertion message ("" if none).

    The source is evaluated through the browser's debugging protocol, which the page's
    Content-Security-Policy does not govern (a <script> tag of it would be refused).
    """
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(axe_source)
    # resultTypes: full detail for violations only, which makes axe several times faster.
    results = page.evaluate(
        """(tags) => axe.run(document, {
            runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]
        })""",
        WCAG_21_AA,
    )
    assert results["passes"], "axe checked nothing on this page"
    lines = []
    for violation in results["violations"]:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    {' '.join(node['target'])}: {node['failureSummary']}")
    return "\n".join(lines)
