// SPDX-License-Identifier: MIT
#pragma once
// Session titles as events (core/ingest/adapter.hpp, ParsedTitle): the id an
// adapter gives a title when its line has no id of its own.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

/// A title of `session` with the native id <session>:title:<24 hex>, the
/// hex from a SHA-256 of whether the user gave it, `before` (the title that
/// came before it in its log, or "" for none or where the agent repeats the
/// title on every record) and the title.  So a title repeated on every
/// record of a session is one event, and the same title back after another
/// is a new one where `before` says so.
ParsedTitle MakeTitle(std::string session, std::string text, bool manual, std::int64_t ts,
                      std::string_view before = {});

}  // namespace origin::adapters
