// SPDX-License-Identifier: MIT
#pragma once
// What a forget hides, with its text: the forget's own page in the web UI
// and `origin forgotten ID` (spec: Admin UI, "A forget in effect has a page
// of its own that shows its owner what it hides").  The only reader of
// hidden text; never reached from MCP.

#include <cstdint>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/entries/entries.hpp"
#include "core/query/events.hpp"

namespace origin {

inline constexpr std::int64_t kHiddenEventsPerPage = 100;

struct ForgetHides {
  std::vector<EntryRow> entries;  // every version it covers and is hidden now, oldest first
  std::vector<EventRow> events;   // a page of the events, by session and time
  std::int64_t events_total = 0, page = 1, pages = 0;
};

/// The items forget `forget` covers (tombstone_effect) that are hidden now
/// (forgotten_entry, excluded_event), whichever forget in effect hides them.
/// OpError kNotFound for a page past the last.
ForgetHides WhatForgetHides(Db& db, const std::string& forget, std::int64_t page);

}  // namespace origin
