// SPDX-License-Identifier: MIT
#pragma once
// Test helpers: a temporary directory removed on destruction, file writes,
// and a store (writer connection, mirrors, fake clock) in a temp home.

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/fd.hpp"
#include "core/c/sqlite.hpp"
#include "core/ingest/ingester.hpp"
#include "core/store/mirror.hpp"
#include "core/util/clock.hpp"
#include "core/util/op_error.hpp"

namespace origin::test {

class ScopedTempDir {
 public:
  /// Under $TMPDIR (default /tmp), or under `base` when given: tests that
  /// run a process as another user pass "/tmp", which every user can reach.
  explicit ScopedTempDir(const std::string& base = "");
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(std::string_view rel) const { return path_ + "/" + std::string(rel); }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, std::string_view data);  // creates parent dirs
void AppendFile(const std::string& path, std::string_view data);
std::string ReadAll(const std::string& path);
/// The files under `dir` (a store) holding `needle` as they are: tails,
/// databases, WALs (a sealed frame is compressed; a socket is left out).
std::vector<std::string> FilesHolding(const std::string& dir, std::string_view needle);
/// ZCode's tables (sources.md 4.2, OpenCode's schema with its indexes), in WAL mode.
void CreateZcodeSchema(Db& db);
/// ZCode's database as its CLI lays it out (sources.md 4.2), built by the
/// tests rather than committed: two sessions (one a sub-agent's), messages
/// and parts, the last assistant message (msg_05) still streaming.
void BuildZcodeDb(const std::string& path);

/// A cursor-agent chat database (sources.md 3.3) at `path`, built by the
/// tests: `meta` with hex-encoded JSON naming the root blob, message blobs
/// (JSON) and protobuf tree blobs listing their children.  `messages` are
/// the chat's messages in order, as JSON; the tree is a root holding a
/// subtree of the first half and the rest directly.  Rewrites an existing
/// chat's tree (a new root) when called again.
void BuildCursorChat(const std::string& path, const std::vector<std::string>& messages);

/// Cursor's IDE database (sources.md 3.1) at `path`, built by the tests:
/// `cursorDiskKV` with the conversation `composer` (its status `status`) and
/// its bubbles as (id, JSON), in order; another call adds or rewrites rows
/// as Cursor does (INSERT OR REPLACE, which gives a row a new rowid).
void PutCursorConversation(const std::string& path, const std::string& composer,
                           const std::string& status,
                           const std::vector<std::pair<std::string, std::string>>& bubbles);
/// A Cursor IDE workspace (sources.md 3.1) in `dir`, built by the tests:
/// workspace.json opening `folder_uri`, and a state.vscdb whose
/// composer.composerData lists `composers`, and, when `chatdata` is not
/// empty, the oldest chat panel's workbench.panel.aichat.view.aichat.chatdata.
void PutCursorWorkspace(const std::string& dir, const std::string& folder_uri,
                        const std::vector<std::string>& composers,
                        const std::string& chatdata = "");

/// The SHA-256 of every regular file under `root`, by path: an agent's
/// files must be byte-identical before and after a sync.
std::map<std::string, std::string> HashTree(const std::string& root);

/// A raw_file row of source `t` whose key and mirror are `mirror`; its id.
std::int64_t NewRawFile(Db& db, const std::string& mirror);
bool Exists(const std::string& path);
/// Sets a file's modification time (ns since the epoch).
void SetMtime(const std::string& path, std::int64_t mtime_ns);
/// Runs a shell command; returns its exit status.
int Sh(const std::string& cmd);
/// The port a hub's log file names at its latest start ("hub: serving
/// http://ADDR:PORT"); 0 before it listens.
int HubPortInLog(const std::string& log);
/// The code of the OpError `fn` throws; nothing when it throws none.
std::optional<OpError::Code> OpErrorOf(const std::function<void()>& fn);

/// Everything each event is, with its provenance by source, file key,
/// generation and line, ordered by id: two stores that ingested the same
/// lines give the same text, whatever the order or the interruptions.
std::string DumpEvents(Db& db);
/// The complete lines of a file: what its mirror must hold once ingested.
std::string CompleteLines(const std::string& path);

/// A store in a temporary home, with a fake clock.
struct TestStore {
  ScopedTempDir dir;
  FakeClock clock{1767225600000};  // 2026-01-01T00:00:00Z
  std::unique_ptr<Db> db;
  std::unique_ptr<MirrorStore> mirrors;
  std::unique_ptr<Ingester> ingester;
  explicit TestStore(const std::string& base = "");
  std::string db_path() const { return dir / "origin.db"; }
  std::string raw_dir() const { return dir / "raw"; }
};

}  // namespace origin::test
