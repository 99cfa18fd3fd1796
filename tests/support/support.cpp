// SPDX-License-Identifier: MIT
#include "tests/support/support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "core/c/fd.hpp"
#include "core/store/schema.hpp"
#include "core/util/hash.hpp"

namespace origin::test {

ScopedTempDir::ScopedTempDir(const std::string& base) {
  const char* env = std::getenv("TMPDIR");
  std::string dir = !base.empty() ? base : env != nullptr && *env != '\0' ? env : "/tmp";
  std::string tmpl = dir + "/origin-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  // Make everything removable again (tests take permissions away).
  for (auto it = std::filesystem::recursive_directory_iterator(
           path_, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0700);
  }
  std::filesystem::remove_all(path_, ec);
}

void WriteFile(const std::string& path, std::string_view data) {
  MakeDirs(path.substr(0, path.rfind('/')), 0755);
  UniqueFd fd = OpenFile(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  PwriteFull(fd.get(), data, 0, path);
}

void AppendFile(const std::string& path, std::string_view data) {
  MakeDirs(path.substr(0, path.rfind('/')), 0755);
  UniqueFd fd = OpenFile(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n <= 0) throw std::runtime_error("append " + path);
    done += static_cast<std::size_t>(n);
  }
}

std::string ReadAll(const std::string& path) { return ReadFile(path); }

std::vector<std::string> FilesHolding(const std::string& dir, std::string_view needle) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && ReadAll(e.path().string()).find(needle) != std::string::npos)
      out.push_back(e.path().string());
  return out;
}

std::string DumpEvents(Db& db) {
  Stmt st(
      db.get(),
      "SELECT e.id, coalesce(e.session, ''), e.ts, e.kind, e.role, e.text, "
      "coalesce(e.tool_name, ''), coalesce(e.call_id, ''), r.source, r.key, r.generation, e.line "
      "FROM event e JOIN raw_file r ON r.id = e.file_id ORDER BY e.id");
  std::string out;
  while (st.Step()) {
    for (int c = 0; c < 12; ++c) {
      out += st.Text(c);
      out += '\x1f';
    }
    out += '\n';
  }
  return out;
}

std::string CompleteLines(const std::string& path) {
  std::string s = ReadAll(path);
  return s.substr(0, s.rfind('\n') + 1);
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

void SetMtime(const std::string& path, std::int64_t mtime_ns) {
  timespec ts[2];
  ts[0].tv_sec = mtime_ns / 1000000000;
  ts[0].tv_nsec = mtime_ns % 1000000000;
  ts[1] = ts[0];
  if (::utimensat(AT_FDCWD, path.c_str(), ts, 0) != 0)
    throw std::runtime_error("utimensat " + path);
}

int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }

int HubPortInLog(const std::string& log) {
  const std::string text = Exists(log) ? ReadAll(log) : "";
  const std::size_t at = text.rfind("hub: serving http://");  // the latest start's
  if (at == std::string::npos) return 0;
  const std::size_t end = text.find(' ', at + 20);
  const std::size_t colon = text.rfind(':', end);
  return std::atoi(text.substr(colon + 1, end - colon - 1).c_str());
}

std::optional<OpError::Code> OpErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const OpError& e) {
    return e.code();
  }
  return std::nullopt;
}

TestStore::TestStore(const std::string& base) : dir(base) {
  db = OpenWriteConnection(db_path());
  mirrors = std::make_unique<MirrorStore>(raw_dir());
  ingester = std::make_unique<Ingester>(*db, *mirrors, clock);
}

std::int64_t NewRawFile(Db& db, const std::string& mirror) {
  db.Prepare(
        "INSERT INTO raw_file(source, key, generation, path, mirror, created_at) "
        "VALUES ('t', ?, 1, '/x', ?, 0)")
      .Bind(1, mirror)
      .Bind(2, mirror)
      .Run();
  return db.LastInsertRowid();
}

std::map<std::string, std::string> HashTree(const std::string& root) {
  std::map<std::string, std::string> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file()) out[e.path().string()] = Sha256Hex(ReadAll(e.path().string()));
  return out;
}

// ZCode's database, as its CLI lays it out (sources.md 4.2), built here
// rather than committed: sessions (one a sub-agent), messages and parts, an
// assistant message still streaming at the end.
void CreateZcodeSchema(Db& db) {
  db.Exec("PRAGMA journal_mode = WAL");
  // OpenCode's tables and the indexes its drizzle schema declares.
  db.Exec(R"sql(
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT,
  title TEXT, title_source TEXT, version TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, sequence INTEGER,
  time_created INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, sequence INTEGER,
  time_created INTEGER, data TEXT);
CREATE INDEX message_session_idx ON message(session_id);
CREATE INDEX part_message_idx ON part(message_id);
CREATE INDEX part_session_idx ON part(session_id);
)sql");
}

void BuildZcodeDb(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  Db db(path, Db::Mode::kReadWrite);
  CreateZcodeSchema(db);
  db.Exec(R"sql(
INSERT INTO session VALUES
  ('sess_8c1f', 'proj_-home-dev-app', NULL, '/home/dev/app', 'Fix parser test', 'custom',
   '0.16.9', 1767600000000, 1767600300000),
  ('sess_subagent_1', 'proj_-home-dev-app', 'sess_8c1f', '/home/dev/app', 'explore', NULL,
   '0.16.9', 1767600100000, 1767600200000);
INSERT INTO message VALUES
  ('msg_01', 'sess_8c1f', 1, 1767600000100, '{"role":"user","path":{"cwd":"/home/dev/app"}}'),
  ('msg_02', 'sess_8c1f', 2, 1767600000200, '{"role":"assistant","modelID":"glm-5.3","path":{"cwd":"/home/dev/app"},"finish":"tool-calls"}'),
  ('msg_s1', 'sess_subagent_1', 1, 1767600100000, '{"role":"assistant","modelID":"glm-5.3","time":{"created":1767600100000,"completed":1767600100500}}'),
  ('msg_03', 'sess_8c1f', 3, 1767600000300, '{"role":"assistant","modelID":"glm-5.3","path":{"cwd":"/home/dev/app"}}'),
  ('msg_04', 'sess_8c1f', 4, 1767600000400, '{"role":"user","path":{"cwd":"/home/dev/app"}}'),
  ('msg_05', 'sess_8c1f', 5, 1767600000500, '{"role":"assistant","modelID":"glm-5.3","path":{"cwd":"/home/dev/app"}}');
INSERT INTO part VALUES
  ('prt_01', 'msg_01', 'sess_8c1f', 1, 1767600000100, '{"type":"text","text":"Fix the failing parser test"}'),
  ('prt_02', 'msg_02', 'sess_8c1f', 1, 1767600000200, '{"type":"reasoning","text":"SECRET-THOUGHT run the test first"}'),
  ('prt_03', 'msg_02', 'sess_8c1f', 2, 1767600000210, '{"type":"tool","callID":"call_1","tool":"Bash","state":{"status":"completed","input":{"command":"ctest -R parser"},"output":"1 test failed"}}'),
  ('prt_04', 'msg_02', 'sess_8c1f', 3, 1767600000220, '{"type":"tool","callID":"call_2","tool":"Read","state":{"status":"error","input":{"path":"nope.cpp"},"error":"no such file"}}'),
  ('prt_05', 'msg_02', 'sess_8c1f', 4, 1767600000230, '{"type":"step-finish"}'),
  ('prt_s1', 'msg_s1', 'sess_subagent_1', 1, 1767600100100, '{"type":"text","text":"The parser lives in src/parse."}'),
  ('prt_06', 'msg_03', 'sess_8c1f', 1, 1767600000300, '{"type":"text","text":"The test expected a trailing newline; fixed."}'),
  ('prt_07', 'msg_04', 'sess_8c1f', 1, 1767600000400, '{"type":"text","text":"Thanks. Now the docs."}'),
  ('prt_r1', 'msg_04', 'sess_8c1f', 2, 1767600000401, '{"type":"text","text":"<system-reminder>The TodoWrite tool hasn''t been used recently.</system-reminder>"}'),
  ('prt_r2', 'msg_04', 'sess_8c1f', 3, 1767600000402, '{"type":"text","synthetic":true,"text":"Called the Read tool with {\"path\":\"README.md\"}"}'),
  ('prt_f1', 'msg_04', 'sess_8c1f', 4, 1767600000403, '{"type":"file","mime":"text/plain","filename":"notes.txt","url":"file:///home/dev/app/notes.txt"}'),
  ('prt_x1', 'msg_03', 'sess_8c1f', 0, 1767600000299, '{"type":"step-start"}'),
  ('prt_x2', 'msg_03', 'sess_8c1f', 2, 1767600000301, '{"type":"patch","hash":"4b825dc","files":["/home/dev/app/test/parser.cpp"]}'),
  ('prt_x3', 'msg_03', 'sess_8c1f', 3, 1767600000302, '{"type":"compaction","auto":true}'),
  ('prt_x4', 'msg_03', 'sess_8c1f', 4, 1767600000303, '{"type":"subtask","prompt":"Explore src/parse","description":"explore","agent":"explore"}'),
  ('prt_08', 'msg_05', 'sess_8c1f', 1, 1767600000500, '{"type":"text","text":"Updating the"}');
)sql");
}

void BuildCursorChat(const std::string& path, const std::vector<std::string>& messages) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  Db db(path, Db::Mode::kReadWrite);
  db.Exec("PRAGMA journal_mode = WAL");
  db.Exec(
      "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE IF NOT EXISTS blobs (id TEXT PRIMARY KEY, data BLOB);");
  auto put = [&](const std::string& data) {
    const std::string id = Sha256Hex(data);
    auto st = db.Prepare("INSERT OR IGNORE INTO blobs(id, data) VALUES (?, ?)");
    st.Bind(1, id).BindBlob(2, data.data(), data.size()).Run();
    return id;
  };
  // A tree blob: field 1 (0x0A), length 32 (0x20), the raw id, per child;
  // then a field the reader must skip (9: a workspace path).
  auto tree = [&](const std::vector<std::string>& children) {
    std::string b;
    for (const std::string& hex : children) {
      b += '\x0a';
      b += '\x20';
      for (std::size_t i = 0; i < hex.size(); i += 2)
        b += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    }
    const std::string ws = "/home/dev/app";
    b += '\x4a';  // field 9, length-delimited
    b += static_cast<char>(ws.size());
    b += ws;
    return put(b);
  };
  std::vector<std::string> ids;
  for (const std::string& m : messages) ids.push_back(put(m));
  const std::size_t half = ids.size() / 2;
  std::vector<std::string> top = {tree(std::vector<std::string>(ids.begin(), ids.begin() + half))};
  top.insert(top.end(), ids.begin() + half, ids.end());
  const std::string root = tree(top);
  const std::string meta =
      R"({"agentId":"ac43c6","latestRootBlobId":")" + root +
      R"(","name":"Fix flaky test","mode":"default","createdAt":1768862746153,"lastUsedModel":"gpt-5"})";
  auto st = db.Prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('0', ?)");
  st.Bind(1, Hex(meta)).Run();
}

void PutCursorConversation(const std::string& path, const std::string& composer,
                           const std::string& status,
                           const std::vector<std::pair<std::string, std::string>>& bubbles) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  Db db(path, Db::Mode::kReadWrite);
  db.Exec("PRAGMA journal_mode = WAL");
  db.Exec(
      "CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);"
      "CREATE TABLE IF NOT EXISTS cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);"
      "INSERT INTO cursorDiskKV VALUES ('cursorAuth/accessToken', 'SECRET-TOKEN');");
  std::string headers;
  for (const auto& [id, json] : bubbles)
    headers += std::string(headers.empty() ? "" : ",") + R"({"bubbleId":")" + id + R"(","type":1})";
  auto put = db.Prepare("INSERT OR REPLACE INTO cursorDiskKV(key, value) VALUES (?, ?)");
  put.Bind(1, "composerData:" + composer)
      .Bind(
          2,
          R"({"_v":10,"composerId":")" + composer +
              R"(","name":"Add rate limiter","createdAt":1767600000000,"status":")" + status +
              R"(","unifiedMode":"agent","modelConfig":{"modelName":"claude-4.5-sonnet"},"fullConversationHeadersOnly":[)" +
              headers + "]}")
      .Run();
  for (const auto& [id, json] : bubbles) {
    put.Reset();
    put.Bind(1, "bubbleId:" + composer + ":" + id).Bind(2, json).Run();
  }
}

void PutCursorWorkspace(const std::string& dir, const std::string& folder_uri,
                        const std::vector<std::string>& composers, const std::string& chatdata) {
  std::filesystem::create_directories(dir);
  WriteFile(dir + "/workspace.json", R"({"folder":")" + folder_uri + R"("})");
  Db db(dir + "/state.vscdb", Db::Mode::kReadWrite);
  db.Exec("CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)");
  std::string all;
  for (const std::string& c : composers)
    all += std::string(all.empty() ? "" : ",") + R"({"composerId":")" + c +
           R"(","name":"A chat","createdAt":1767600000000})";
  db.Prepare("INSERT INTO ItemTable(key, value) VALUES ('composer.composerData', ?)")
      .Bind(1, R"({"allComposers":[)" + all + R"(],"selectedComposerIds":[]})")
      .Run();
  if (!chatdata.empty())
    db.Prepare(
          "INSERT INTO ItemTable(key, value) VALUES "
          "('workbench.panel.aichat.view.aichat.chatdata', ?)")
        .Bind(1, chatdata)
        .Run();
}

}  // namespace origin::test
