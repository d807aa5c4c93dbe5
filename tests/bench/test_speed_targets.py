"""bench/speed_targets.py: one table of issue #50's targets from the latest run and floor."""

from bench.speed_targets import FLOOR_LOGGED_IN, Runs, evaluate, render

AFTER_EDIT = "schedule, first request after one edit (N=1000): median, in-process"
CACHED_LOGGED_IN = (
    "schedule from the cache, logged in (N=1000): median, in-process, against its floor"
)


def run(after_edit_ms: float, loop_ms: float) -> dict:
    page = {
        "name": "schedule after one edit",
        "uncached": {"status": 200, "median_ms": after_edit_ms},
    }
    return {
        "sizes": [{"size": 1000, "pages": [page]}],
        "environment": {"reference_loop_ms": [loop_ms, loop_ms], "load_average": [9.0, 12.0]},
    }


def floor(cached_ms: float, floor_ms: float) -> dict:
    return {
        "rows": [
            {"name": FLOOR_LOGGED_IN, "in_process": {"median_ms": floor_ms}},
            {"name": "schedule from the cache, logged in", "in_process": {"median_ms": cached_ms}},
        ],
        "environment": {"reference_loop_ms": [40.0, 40.0]},
    }


def row(rows: list[dict], name: str) -> dict:
    return next(row for row in rows if row["name"] == name)


def test_a_time_is_judged_as_measured_and_estimated_at_a_quiet_machines_loop():
    rows = evaluate(Runs("sqlite", run(after_edit_ms=300, loop_ms=164), None))

    after_edit = row(rows, AFTER_EDIT)
    assert after_edit["met"] is False
    assert after_edit["quiet"] == {"": 300 * 41 / 164}
    assert after_edit["quiet_met"] is True


def test_a_cached_page_is_judged_against_its_floor_of_the_same_run():
    within = row(evaluate(Runs("sqlite", None, floor(cached_ms=12, floor_ms=10))), CACHED_LOGGED_IN)
    over = row(evaluate(Runs("sqlite", None, floor(cached_ms=14, floor_ms=10))), CACHED_LOGGED_IN)

    assert (within["limit"], within["floor"], within["met"]) == (13, 10, True)
    assert over["met"] is False


def test_a_target_without_figures_reads_not_measured():
    runs = Runs("postgresql", None, None)

    table = render(evaluate(runs), runs)

    assert table.count("| not measured |") == len(evaluate(runs))
