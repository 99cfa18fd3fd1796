// SPDX-License-Identifier: MIT
#pragma once
// Text helpers shared by ingestion and the search indexes: UTF-8 repair and
// truncation by characters, the CJK bigrams that feed event_cjk, ISO 8601
// timestamps, and path pieces.  All pure functions.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace origin {

/// A copy of `s` with every invalid UTF-8 sequence replaced by U+FFFD and
/// NUL bytes dropped, so that SQLite and the FTS tokenizers see valid text.
std::string SanitizeUtf8(std::string_view s);
/// True when `s` is valid UTF-8 without NUL: what SanitizeUtf8 leaves as it is.
bool ValidUtf8(std::string_view s);
/// The first `max_chars` code points of valid UTF-8 `s`.
std::string_view TruncateChars(std::string_view s, std::size_t max_chars);
/// Number of code points in valid UTF-8 `s`.
std::size_t CountChars(std::string_view s);
/// True for Han, kana and Hangul letters: the letters event_cjk indexes.
bool IsCjkLetter(char32_t c);
/// Decodes one code point at `s[i]`, advancing i; U+FFFD for a bad byte.
char32_t DecodeUtf8(std::string_view s, std::size_t& i);
void AppendUtf8(std::string& out, char32_t c);
/// The tokens event_cjk stores for `text`, space-separated: every CJK letter
/// and every pair of adjacent ones, so that one letter and two letters are
/// each a plain token query (format version 2; version 1 stored the pairs
/// and the last letter of each stretch).  Empty when the text holds none.
std::string CjkTokens(std::string_view text);

/// Milliseconds since the epoch of an ISO 8601 / RFC 3339 timestamp such as
/// 2025-11-23T04:53:42.362Z or 2025-11-23T12:53:42+08:00; nullopt if malformed.
std::optional<std::int64_t> ParseIsoMs(std::string_view s);
/// 2025-11-23T04:53:42.362Z for `ms` (UTC).
std::string FormatIsoUtc(std::int64_t ms);
/// 2025-11-23T05:53:42.362+01:00: `ms` in the local time zone, with its offset.
std::string FormatIsoLocal(std::int64_t ms);

/// True when the brackets of the JSON text `json` nest at most `max_depth`
/// deep (strings and escapes skipped).  Checked before parsing anything that
/// came from outside: RapidJSON's writer and our walks of a document recurse,
/// so a line of a million '[' must be refused, not followed.
bool JsonDepthWithin(std::string_view json, int max_depth);

/// `s` without the characters of `space` around it (by default spaces, tabs
/// and line ends).
std::string_view TrimSpace(std::string_view s, std::string_view space = " \t\r\n");
/// True when `text` holds every word of `words` (split at spaces; empty
/// words ignored), each anywhere and in any case (ASCII letters folded).
bool HasEveryWord(std::string_view text, std::string_view words);

/// The last path segment of `path` ('/' or '\\' separated), ignoring a
/// trailing separator; "" for an empty path.
std::string LastPathSegment(std::string_view path);

/// The '/'-separated parts of `path`, empty ones included ("a//b/" is
/// "a", "", "b", "").
std::vector<std::string_view> SplitPath(std::string_view path);

/// `s` with its %XX escapes decoded; nothing for a malformed escape.
std::optional<std::string> PercentDecode(std::string_view s);

}  // namespace origin
