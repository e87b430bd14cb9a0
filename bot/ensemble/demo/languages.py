"""The demo in other languages: the same median bug and failing test in Go, Rust, JavaScript and C.

Each sample is a small repository whose `median` returns the upper middle value for an even
count; its test suite has one failing test that names the bug. The scripted transcript beside
this file (`transcript-<lang>.jsonl`) writes a reproduction test and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.ensemble.demo import commit_sample


@dataclass(frozen=True)
class Sample:
    """A demo repository in one language: its files, the task, and the test that fails before the fix."""

    language: str
    files: dict[str, str]
    failing_test: str  # the red test, as the sandbox names it

    @property
    def transcript(self) -> Path:
        """The scripted replies that fix this sample."""
        return Path(__file__).with_name(f"transcript-{self.language}.jsonl")

    @property
    def task(self) -> str:
        """The task text: title, blank line, body."""
        return (f"median is wrong for an even number of values\n\nThe median of [1, 2, 3, 4] must be 2.5, the mean "
                f"of the two middle values, but the upper middle value comes back. {self.failing_test} fails.")


GO = Sample("go", {
    "go.mod": "module example.com/stats\n\ngo 1.19\n",
    "stats.go": """// Package stats holds tiny statistics helpers.
package stats

import "sort"

// Mean is the arithmetic mean of values.
func Mean(values []float64) float64 {
\ttotal := 0.0
\tfor _, v := range values {
\t\ttotal += v
\t}
\treturn total / float64(len(values))
}

// Median is the middle value of values; the mean of the two middle values when their count is even.
func Median(values []float64) float64 {
\tordered := append([]float64(nil), values...)
\tsort.Float64s(ordered)
\tmiddle := len(ordered) / 2
\treturn ordered[middle]
}
""",
    "stats_test.go": """package stats

import "testing"

func TestMean(t *testing.T) {
\tif got := Mean([]float64{1, 2, 3}); got != 2 {
\t\tt.Errorf("Mean = %v, want 2", got)
\t}
}

func TestMedianOdd(t *testing.T) {
\tif got := Median([]float64{3, 1, 2}); got != 2 {
\t\tt.Errorf("Median = %v, want 2", got)
\t}
}

func TestMedianEven(t *testing.T) {
\tif got := Median([]float64{1, 2, 3, 4}); got != 2.5 {
\t\tt.Errorf("Median = %v, want 2.5", got)
\t}
}
""",
}, "stats_test.go::TestMedianEven")

RUST = Sample("rust", {
    "Cargo.toml": '[package]\nname = "stats"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    "src/lib.rs": """//! Tiny statistics helpers.

/// The arithmetic mean of `values`.
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The middle value of `values`; the mean of the two middle values when their count is even.
pub fn median(values: &[f64]) -> f64 {
    let mut ordered = values.to_vec();
    ordered.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let middle = ordered.len() / 2;
    ordered[middle]
}
""",
    "tests/stats.rs": """use stats::{mean, median};

#[test]
fn mean_of_three() {
    assert_eq!(mean(&[1.0, 2.0, 3.0]), 2.0);
}

#[test]
fn median_odd() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
}

#[test]
fn median_even() {
    assert_eq!(median(&[1.0, 2.0, 3.0, 4.0]), 2.5);
}
""",
}, "tests/stats.rs::median_even")

JS = Sample("js", {
    "package.json": '{\n  "name": "stats",\n  "version": "1.0.0",\n  "private": true,\n'
                    '  "scripts": {\n    "test": "node --test"\n  }\n}\n',
    "stats.js": """'use strict';

/** The arithmetic mean of `values`. */
function mean(values) {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** The middle value of `values`; the mean of the two middle values when their count is even. */
function median(values) {
  const ordered = [...values].sort((a, b) => a - b);
  const middle = Math.floor(ordered.length / 2);
  return ordered[middle];
}

module.exports = { mean, median };
""",
    "test/stats.test.js": """'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { mean, median } = require('../stats');

test('mean of three', () => {
  assert.strictEqual(mean([1, 2, 3]), 2);
});

test('median odd', () => {
  assert.strictEqual(median([3, 1, 2]), 2);
});

test('median even', () => {
  assert.strictEqual(median([1, 2, 3, 4]), 2.5);
});
""",
}, "test/stats.test.js::median even")

_C_TEST = """#include <stdio.h>

#include "stats.h"

int main(void) {{
    double values[] = {{{values}}};
    double got = {call};
    if (got != {want}) {{
        fprintf(stderr, "{call} with {{{values}}} = %g, want {want}\\n", got);
        return 1;
    }}
    return 0;
}}
"""
C = Sample("c", {
    "CMakeLists.txt": """cmake_minimum_required(VERSION 3.13)
project(stats C)
enable_testing()

add_library(stats src/stats.c)
target_include_directories(stats PUBLIC include)

# every tests/<name>.c is a test program named <name>
file(GLOB test_sources CONFIGURE_DEPENDS tests/*.c)
foreach(source ${test_sources})
  get_filename_component(name ${source} NAME_WE)
  add_executable(${name} ${source})
  target_link_libraries(${name} stats)
  add_test(NAME ${name} COMMAND ${name})
endforeach()
""",
    "include/stats.h": """#ifndef STATS_H
#define STATS_H

#include <stddef.h>

/* The arithmetic mean of `count` values. */
double mean(const double *values, size_t count);

/* The middle value; the mean of the two middle values when `count` is even. */
double median(const double *values, size_t count);

#endif
""",
    "src/stats.c": """#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mean(const double *values, size_t count) {
    double total = 0;
    for (size_t i = 0; i < count; i++) {
        total += values[i];
    }
    return total / count;
}

double median(const double *values, size_t count) {
    double *ordered = malloc(count * sizeof *ordered);
    memcpy(ordered, values, count * sizeof *ordered);
    qsort(ordered, count, sizeof *ordered, compare);
    double result = ordered[count / 2];
    free(ordered);
    return result;
}
""",
    "tests/mean_of_three.c": _C_TEST.format(values="1, 2, 3", call="mean(values, 3)", want="2"),
    "tests/median_odd.c": _C_TEST.format(values="3, 1, 2", call="median(values, 3)", want="2"),
    "tests/median_even.c": _C_TEST.format(values="1, 2, 3, 4", call="median(values, 4)", want="2.5"),
}, "median_even")

SAMPLES = {sample.language: sample for sample in (GO, RUST, JS, C)}


def create_language_sample(language: str, path: Path) -> Sample:
    """Write the `language` sample repository at `path`, committed on `main`; KeyError names the choices."""
    if language not in SAMPLES:
        raise KeyError(f"no demo for {language!r}; choose one of {', '.join(sorted(SAMPLES))} (or python)")
    sample = SAMPLES[language]
    commit_sample(path, sample.files, f"Sample: stats helpers in {language}")
    return sample
