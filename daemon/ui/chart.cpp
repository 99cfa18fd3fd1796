// SPDX-License-Identifier: MIT
#include "daemon/ui/chart.hpp"

#include "daemon/ui/layout.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace origin::ui {

namespace {

constexpr int kWidth = 720, kHeight = 220;
constexpr int kLeft = 48, kRight = 8, kTop = 12, kBottom = 28;
constexpr int kSeriesClasses = 8;

std::string SeriesClass(std::size_t i) {
  return "series-" + std::to_string(i % kSeriesClasses);
}

std::int64_t Total(const ChartDay& d) {
  std::int64_t t = 0;
  for (std::int64_t c : d.counts) t += std::max<std::int64_t>(c, 0);
  return t;
}

}  // namespace

std::int64_t NiceCeiling(std::int64_t max) {
  std::int64_t p = 1;
  while (true) {
    for (std::int64_t m : {1, 2, 5})
      if (m * p >= max) return m * p;
    if (p > INT64_MAX / 100) return max;
    p *= 10;
  }
}

void RenderDayChart(Html& out, std::span<const std::string> series,
                    std::span<const ChartDay> days) {
  std::int64_t max = 0, sum = 0;
  for (const ChartDay& d : days) {
    max = std::max(max, Total(d));
    sum += Total(d);
  }
  const std::int64_t top = NiceCeiling(std::max<std::int64_t>(max, 1));
  const std::string summary = Num(sum) + " visible events over " + std::to_string(days.size()) +
                              " days; the busiest day had " + Num(max) + ".";

  out.Open("figure", {{"class", "chart"}});
  const std::string view = "0 0 " + std::to_string(kWidth) + " " + std::to_string(kHeight);
  out.Open("svg", {{"xmlns", "http://www.w3.org/2000/svg"}, {"viewBox", view},
                   {"role", "img"}, {"aria-labelledby", "chart-title chart-desc"}, {"focusable", "false"}});
  out.Element("title", {{"id", "chart-title"}}, "Visible events per day, by source");
  out.Element("desc", {{"id", "chart-desc"}}, summary);

  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  // The axis: 0, the whole number at or under half the top (2 of 5; none
  // of 1), and the top, each with its grid line at its own height.
  std::vector<std::int64_t> ticks = {0};
  if (top / 2 > 0) ticks.push_back(top / 2);
  ticks.push_back(top);
  for (const std::int64_t v : ticks) {
    const double y = kTop + plot_h - plot_h * static_cast<double>(v) / static_cast<double>(top);
    const std::string ys = std::to_string(static_cast<int>(y));
    out.Void("line", {{"class", "grid"}, {"x1", std::to_string(kLeft)}, {"x2", std::to_string(kWidth - kRight)},
                      {"y1", ys}, {"y2", ys}});
    out.Element("text", {{"class", "axis"}, {"x", std::to_string(kLeft - 6)}, {"y", std::to_string(static_cast<int>(y) + 4)},
                         {"text-anchor", "end"}}, Num(v));
  }
  const double slot = days.empty() ? plot_w : plot_w / static_cast<double>(days.size());
  const double bar = std::max(1.0, slot * 0.75);
  for (std::size_t i = 0; i < days.size(); ++i) {
    const ChartDay& d = days[i];
    const double x = kLeft + slot * static_cast<double>(i) + (slot - bar) / 2;
    std::string tip = d.day + ": " + Num(Total(d));
    for (std::size_t s = 0; s < series.size() && s < d.counts.size(); ++s)
      if (d.counts[s] > 0) tip += "\n" + series[s] + ": " + Num(d.counts[s]);
    out.Open("g", {{"class", "day"}});
    out.Element("title", tip);
    double y = kTop + plot_h;
    for (std::size_t s = 0; s < d.counts.size() && s < series.size(); ++s) {
      if (d.counts[s] <= 0) continue;
      const double h = plot_h * static_cast<double>(d.counts[s]) / static_cast<double>(top);
      y -= h;
      char buf[4][32];
      std::snprintf(buf[0], sizeof buf[0], "%.1f", x);
      std::snprintf(buf[1], sizeof buf[1], "%.1f", y);
      std::snprintf(buf[2], sizeof buf[2], "%.1f", bar);
      std::snprintf(buf[3], sizeof buf[3], "%.1f", std::max(h, 0.5));
      out.Void("rect", {{"class", SeriesClass(s)}, {"x", buf[0]}, {"y", buf[1]}, {"width", buf[2]}, {"height", buf[3]}});
    }
    out.Close("g");
    // A date under the first day, every seventh, and the last.
    // Every 7th day back from today, and the first day unless a label
    // stands within 3 days of it (they would overlap).
    const std::size_t back = days.size() - 1 - i;
    if (back % 7 == 0 || (i == 0 && back % 7 >= 3)) {
      char cx[32];
      std::snprintf(cx, sizeof cx, "%.1f", x + bar / 2);
      const std::string label = d.day.size() >= 10 ? d.day.substr(5) : d.day;
      out.Element("text", {{"class", "axis"}, {"x", cx}, {"y", std::to_string(kHeight - 8)},
                           {"text-anchor", "middle"}}, label);
    }
  }
  out.Close("svg");

  out.Open("figcaption");
  out.Open("ul", {{"class", "legend"}});
  for (std::size_t s = 0; s < series.size(); ++s) {
    out.Open("li").Element("span", {{"class", "swatch " + SeriesClass(s)}, {"aria-hidden", "true"}}, "");
    out.Text(series[s]).Close("li");
  }
  out.Close("ul");
  // The text alternative: every day's numbers.
  out.Open("details").Element("summary", "The numbers, day by day");
  out.Open("div", {{"class", "table-wrap"}}).Open("table").Open("thead").Open("tr");
  out.Element("th", {{"scope", "col"}}, "Day");
  for (const std::string& s : series) out.Element("th", {{"scope", "col"}, {"class", "num"}}, s);
  out.Element("th", {{"scope", "col"}, {"class", "num"}}, "Total");
  out.Close("tr").Close("thead").Open("tbody");
  for (const ChartDay& d : days) {
    out.Open("tr").Element("th", {{"scope", "row"}}, d.day);
    for (std::size_t s = 0; s < series.size(); ++s)
      out.Element("td", {{"class", "num"}}, Num(s < d.counts.size() ? d.counts[s] : 0));
    out.Element("td", {{"class", "num"}}, Num(Total(d)));
    out.Close("tr");
  }
  out.Close("tbody").Close("table").Close("div").Close("details");
  out.Close("figcaption").Close("figure");
}

}  // namespace origin::ui
