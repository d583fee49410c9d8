"""The one percentile definition every bench and load command prints, against values worked out by hand."""

import statistics

import pytest

from companion.ops.measure import Summary, machine_line, percentiles, summarize


def test_percentiles_interpolate_between_the_two_nearest_values():
    # 1..10 spread over 0-100 %: p50 sits at position 4.5 (between 5 and 6), p95 at 8.55, p99 at 8.91.
    values = [7, 3, 10, 1, 9, 2, 8, 4, 6, 5]
    assert percentiles(values, (50, 95, 99)) == {50: 5.5, 95: 9.55, 99: 9.91}


def test_percentiles_of_five_values():
    # Positions 4 * p: p25 at 1 (exactly 20), p95 at 3.8 (40 + 0.8 * 10), p99 at 3.96.
    assert percentiles([50, 10, 40, 20, 30], (25, 50, 95, 99)) == {25: 20, 50: 30, 95: 48, 99: 49.6}


def test_p50_is_the_median_and_no_percentile_leaves_the_values():
    values = [0.4, 0.1, 0.3, 0.2, 9.0, 0.25]
    cuts = percentiles(values, range(1, 100))
    assert cuts[50] == statistics.median(values)
    assert all(min(values) <= cut <= max(values) for cut in cuts.values())
    assert list(cuts.values()) == sorted(cuts.values())


@pytest.mark.parametrize("values, expected", [([], None), ([0.25], 0.25)])
def test_percentiles_of_no_value_or_one(values, expected):
    assert percentiles(values, (50, 99)) == {50: expected, 99: expected}


def test_a_summary_is_in_milliseconds_rounded_as_asked():
    # Four durations of 1-4 ms: mean 2.5; positions 3 * p: p50 at 1.5, p95 at 2.85, p99 at 2.97.
    figures = summarize([0.004, 0.001, 0.003, 0.002], digits=3)
    assert figures == Summary(count=4, mean_ms=2.5, p50_ms=2.5, p95_ms=3.85, p99_ms=3.97)
    assert figures.fields("request_") == {"request_p50_ms": 2.5, "request_p95_ms": 3.85, "request_p99_ms": 3.97}
    assert figures.text() == "p50 2.5 ms, p95 3.85 ms, p99 3.97 ms"


def test_a_summary_of_nothing_says_so():
    assert summarize([]) == Summary(count=0, mean_ms=None, p50_ms=None, p95_ms=None, p99_ms=None)
    assert summarize([]).text() == "p50 None ms, p95 None ms, p99 None ms"


def test_the_machine_line_names_cores_and_load():
    line = machine_line()
    assert line.startswith("Machine: ") and " cores, " in line and "load average" in line
