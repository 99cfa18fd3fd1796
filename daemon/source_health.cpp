// SPDX-License-Identifier: MIT
#include "daemon/source_health.hpp"

namespace origin {

void SourceHealthBook::Problem(SourceHealth& h, const std::string& what, bool store_fault,
                               std::int64_t now_ms) {
  if (h.error.empty()) h.error_since_ms = now_ms;
  h.error = h.last_error = what;
  h.store_fault = store_fault;
  h.last_error_ms = now_ms;
}

void SourceHealthBook::Note(const SyncReport& r, std::int64_t now_ms, bool partial) {
  std::lock_guard lock(mu_);
  for (const SourceSummary& s : r.sources) {
    SourceHealth& h = by_source_[s.source];
    if (s.files_changed > 0) h.last_ingest_ms = now_ms;
    if (!s.errors.empty()) {
      // The store refusing writes first: it is what the user must act on.
      std::string what = s.store_fault.empty() ? s.errors.front() : s.store_fault;
      if (s.errors.size() > 1) what += " (and " + std::to_string(s.errors.size() - 1) + " more)";
      Problem(h, what, !s.store_fault.empty(), now_ms);
    } else if (!partial) {  // a few files going well say nothing of the others
      h.error.clear();      // it lasted until now; last_error keeps it
      h.error_since_ms = 0;
      h.store_fault = false;
    }
  }
}

void SourceHealthBook::Failed(const std::vector<std::string>& sources, const std::string& what,
                              bool store_fault, std::int64_t now_ms) {
  std::lock_guard lock(mu_);
  for (const std::string& s : sources)
    Problem(by_source_[s], "sync failed: " + what, store_fault, now_ms);
}

void SourceHealthBook::Ingested(const std::string& source, std::int64_t now_ms) {
  std::lock_guard lock(mu_);
  by_source_[source].last_ingest_ms = now_ms;
}

std::map<std::string, SourceHealth> SourceHealthBook::Snapshot() const {
  std::lock_guard lock(mu_);
  return by_source_;
}

}  // namespace origin
