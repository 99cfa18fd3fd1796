// SPDX-License-Identifier: MIT
#pragma once
// The overview's chart: visible events per day by source, stacked bars
// drawn on the server as SVG (no script), with a legend and a table as its
// text alternative (issue 16, the spec's Admin UI "What it can do").
// Colours come from the stylesheet by class (series-0 ... series-7), so
// light and dark each have theirs and no style= is written.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "daemon/ui/html.hpp"

namespace origin::ui {

struct ChartDay {
  std::string day;                   // "2026-11-02"
  std::vector<std::int64_t> counts;  // per series, in the order of `series`
};

/// The chart of `days` (oldest first), stacked by `series` (source names).
void RenderDayChart(Html& out, std::span<const std::string> series,
                    std::span<const ChartDay> days);

/// The top of the y axis for a highest bar of `max`: 1, 2 or 5 times a
/// power of ten, at least max (and at least 1).
std::int64_t NiceCeiling(std::int64_t max);

}  // namespace origin::ui
