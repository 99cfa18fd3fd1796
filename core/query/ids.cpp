// SPDX-License-Identifier: MIT
#include "core/query/ids.hpp"

#include <set>
#include <vector>

#include "core/store/visible.hpp"
#include "core/util/op_error.hpp"
#include "core/util/text.hpp"

namespace origin {

namespace {

using Code = OpError::Code;

struct Candidate {
  RefKind kind;
  std::string id;
  bool operator<(const Candidate& o) const {
    return std::tie(kind, id) < std::tie(o.kind, o.id);
  }
};

// The table each kind lives in, which is also its name in messages.
const char* Table(RefKind k) {
  switch (k) {
    case RefKind::kEvent:
      return "event";
    case RefKind::kEntry:
      return "entry";
    case RefKind::kSession:
      return "session";
    case RefKind::kTombstone:
      return "tombstone";
  }
  return "event";
}
const char* Noun(RefKind k) { return Table(k); }

constexpr RefKind kAllKinds[] = {RefKind::kEvent, RefKind::kEntry, RefKind::kSession,
                                 RefKind::kTombstone};

bool Takes(unsigned kinds, RefKind k) { return (kinds & (1u << static_cast<int>(k))) != 0; }

// "an event, an entry or a session"; without articles, "event, entry or session"
std::string KindsText(unsigned kinds, bool articles = true) {
  std::vector<std::string> names;
  for (RefKind k : kAllKinds)
    if (Takes(kinds, k))
      // Of tombstones, only forgets are asked for (restore).
      names.push_back(std::string(!articles                                       ? ""
                                  : k == RefKind::kEntry || k == RefKind::kEvent ? "an "
                                                                                   : "a ") +
                      (k == RefKind::kTombstone ? "forget" : Noun(k)));
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

bool Exists(Db& db, RefKind k, std::string_view id) {
  auto st = db.Prepare(std::string("SELECT 1 FROM ") + Table(k) + " WHERE id = ?");
  st.Bind(1, id);
  return st.Step();
}

bool Visible(Db& db, const Candidate& c) {
  switch (c.kind) {
    case RefKind::kEvent:
      return !EventHidden(db, c.id);
    case RefKind::kEntry:
      return !EntryHidden(db, c.id);
    case RefKind::kSession:
      return SessionVisible(db, c.id);
    case RefKind::kTombstone:
      return true;
  }
  return false;
}

constexpr int kPerQuery = 50;

// Ids of kind `k` that start with `prefix` (byte order: every UTF-8 byte is
// below 0xFF).
void ByIdPrefix(Db& db, RefKind k, const std::string& prefix, std::set<Candidate>& out) {
  auto st = db.Prepare(std::string("SELECT id FROM ") + Table(k) +
                       " WHERE id >= ? AND id < ? ORDER BY id LIMIT " +
                       std::to_string(kPerQuery));
  st.Bind(1, prefix).Bind(2, prefix + "\xFF");
  while (st.Step()) out.insert({k, std::string(st.Text(0))});
}

// Items whose short reference starts with `prefix`.
void ByRef(Db& db, std::string_view prefix, std::set<Candidate>& out) {
  auto range = RefRange(prefix);
  if (!range) return;
  auto st = db.Prepare("SELECT kind, item FROM ref WHERE h BETWEEN ? AND ? LIMIT " +
                       std::to_string(kPerQuery));
  st.Bind(1, range->first).Bind(2, range->second);
  std::vector<std::pair<int, std::string>> rows;  // session: its id; else the seq, as text
  while (st.Step()) {
    const int kind = static_cast<int>(st.Int(0));
    if (kind < 0 || kind > 3) continue;
    const auto k = static_cast<RefKind>(kind);
    if (k == RefKind::kSession) {
      out.insert({k, std::string(st.Text(1))});
      continue;
    }
    auto id = db.Prepare(std::string("SELECT id FROM ") + Table(k) + " WHERE seq = ?");
    id.Bind(1, st.Int(1));
    if (id.Step()) out.insert({k, std::string(id.Text(0))});
  }
}

// Sessions whose native id (after "<source>:") is or starts with `typed`:
// a bare UUID.  Exact ones alone when there are any.
void BySessionNative(Db& db, const std::string& typed, bool prefix, std::set<Candidate>& out) {
  std::vector<std::string> sources;
  {
    auto st = db.Prepare("SELECT DISTINCT source FROM session");
    while (st.Step()) sources.push_back(std::string(st.Text(0)));
  }
  std::set<Candidate> exact;
  for (const std::string& s : sources) {
    const std::string full = s + ":" + typed;
    if (Exists(db, RefKind::kSession, full)) exact.insert({RefKind::kSession, full});
  }
  if (!exact.empty() || !prefix) {
    out.merge(exact);
    return;
  }
  for (const std::string& s : sources) ByIdPrefix(db, RefKind::kSession, s + ":" + typed, out);
}

// A few words saying what a candidate is.
std::string Describe(Db& db, const Candidate& c) {
  auto one_line = [](std::string_view s) {
    std::string out;
    for (char ch : TruncateChars(s, 60)) out += (ch == '\n' || ch == '\r' || ch == '\t') ? ' ' : ch;
    return out;
  };
  switch (c.kind) {
    case RefKind::kEvent: {
      auto st = db.Prepare("SELECT ts, role, kind, text FROM event WHERE id = ?");
      st.Bind(1, c.id);
      if (!st.Step()) return "";
      return FormatIsoLocal(st.Int(0)).substr(0, 16) + " " + std::string(st.Text(1)) + " " +
             std::string(st.Text(2)) + ": " + one_line(st.Text(3));
    }
    case RefKind::kEntry: {
      auto st = db.Prepare("SELECT kind, text FROM entry WHERE id = ?");
      st.Bind(1, c.id);
      if (!st.Step()) return "";
      return std::string(st.Text(0)) + ": " + one_line(st.Text(1));
    }
    case RefKind::kSession: {
      auto st = db.Prepare("SELECT last_ts, title FROM session WHERE id = ?");
      st.Bind(1, c.id);
      if (!st.Step()) return "";
      std::string out = st.Int(0) > 0 ? FormatIsoLocal(st.Int(0)).substr(0, 16) : "";
      if (auto t = st.OptText(1)) out += (out.empty() ? "" : " ") + one_line(*t);
      return out;
    }
    case RefKind::kTombstone: {
      auto st = db.Prepare("SELECT kind, target FROM tombstone WHERE id = ?");
      st.Bind(1, c.id);
      if (!st.Step()) return "";
      return std::string(st.Text(0)) + " of " + std::string(st.Text(1));
    }
  }
  return "";
}

[[noreturn]] void Ambiguous(Db& db, std::string_view typed, unsigned kinds,
                            const std::vector<Candidate>& found) {
  constexpr std::size_t kShown = 10;
  std::string msg = std::string(typed) + " is ambiguous: it names " +
                    std::to_string(found.size()) +
                    (found.size() >= static_cast<std::size_t>(kPerQuery) ? " or more" : "") +
                    " items (" + KindsText(kinds) +
                    " was asked for); type more characters, or one of these:";
  for (std::size_t i = 0; i < found.size() && i < kShown; ++i) {
    const Candidate& c = found[i];
    msg += "\n  " + ShortRef(db, c.id) + "  " + Noun(c.kind) + "  " + c.id;
    if (std::string d = Describe(db, c); !d.empty()) msg += "  " + d;
  }
  if (found.size() > kShown) msg += "\n  ... and " + std::to_string(found.size() - kShown) + " more";
  throw OpError(Code::kAmbiguous, msg);
}

}  // namespace

std::string ResolveId(Db& db, std::string_view given, unsigned kinds) {
  // Surrounding blanks are a copy-and-paste's, never an id's.
  const auto b = given.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) throw OpError(Code::kInvalidArgument, "an id is required");
  const auto e = given.find_last_not_of(" \t\r\n");
  const std::string typed(given.substr(b, e - b + 1));
  // A full id is taken as it is: the operation says what it makes of it.
  for (RefKind k : kAllKinds)
    if (Exists(db, k, typed)) return typed;
  std::set<Candidate> found;
  // A bare session UUID, whole.
  if (Takes(kinds, RefKind::kSession)) BySessionNative(db, typed, false, found);
  if (found.empty()) {
    if (typed.size() < kMinPrefix)
      throw OpError(Code::kInvalidArgument,
                    "no id is " + typed + ", and a prefix needs at least " +
                        std::to_string(kMinPrefix) + " characters");
    ByRef(db, typed, found);
    for (RefKind k : kAllKinds) ByIdPrefix(db, k, typed, found);
    BySessionNative(db, typed, true, found);
  }
  std::vector<Candidate> visible, taken;
  for (const Candidate& c : found)
    if (Visible(db, c)) visible.push_back(c);
  for (const Candidate& c : visible)
    if (Takes(kinds, c.kind)) taken.push_back(c);
  if (taken.size() == 1) return taken.front().id;
  if (taken.size() > 1) Ambiguous(db, typed, kinds, taken);
  if (!visible.empty()) {
    const Candidate& c = visible.front();
    throw OpError(
        Code::kInvalidArgument,
        typed + " names " +
            (c.kind == RefKind::kEntry || c.kind == RefKind::kEvent ? "an " : "a ") + Noun(c.kind) +
            " (" + c.id + "); " + KindsText(kinds) + " is needed here" +
            (c.kind == RefKind::kSession ? ", and timeline lists the session's events" : ""));
  }
  throw OpError(Code::kNotFound, "no " + KindsText(kinds, false) + " " + typed);
}

}  // namespace origin
