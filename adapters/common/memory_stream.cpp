// SPDX-License-Identifier: MIT
#include "adapters/common/memory_stream.hpp"

#include <fcntl.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <vector>

#include "adapters/common/json.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "core/c/fd.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/hash.hpp"

namespace origin::adapters {

namespace {

struct DirFile {
  std::string name;
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
};

// The regular *.md files of `dir` (symlinks and the rest left out), by name.
std::optional<std::vector<DirFile>> ListMarkdown(const std::string& dir) {
  std::vector<DirFile> out;
  bool listed = ForEachEntry(dir, [&](std::string_view name, const struct stat& st) {
    if (name.size() < 4 || !EndsWith(name, ".md") || name.front() == '.' || !S_ISREG(st.st_mode))
      return;
    out.push_back({std::string(name), static_cast<std::int64_t>(st.st_size), MtimeNs(st)});
  });
  if (!listed) return std::nullopt;
  std::sort(out.begin(), out.end(),
            [](const DirFile& a, const DirFile& b) { return a.name < b.name; });
  return out;
}

// The whole of a memory file, or nothing when it cannot be read as one (gone
// meanwhile, no longer a regular file, grown past the limit).
std::optional<std::string> ReadMemoryFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxMemoryFileBytes)
    return std::nullopt;
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > static_cast<std::size_t>(kMaxMemoryFileBytes)) return std::nullopt;
  }
  return out;
}

struct MemoryFileState {
  std::string id;
  std::optional<std::string> hash;  // none once deleted
};
using DirState = std::map<std::string, MemoryFileState>;

}  // namespace

std::string MemoryCursorOf(std::string_view line) { return CursorMembers(line, {"state"}); }

namespace {

DirState StateOf(std::string_view last_line) {
  DirState state;
  if (last_line.empty()) return state;
  rapidjson::Document doc;
  ParseObject(last_line, doc);  // our own line: it parses, or the mirror is not ours
  const Json* s = Member(doc, "state");
  if (s == nullptr || !s->IsObject()) throw ParseError("a memory stream line without its state");
  for (const auto& kv : s->GetObject()) {
    if (!kv.value.IsObject()) continue;
    MemoryFileState f;
    f.id = std::string(Str(kv.value, "id").value_or(""));
    if (auto h = Str(kv.value, "hash")) f.hash = std::string(*h);
    state[std::string(kv.name.GetString(), kv.name.GetStringLength())] = std::move(f);
  }
  return state;
}

void WriteOpt(rapidjson::Writer<rapidjson::StringBuffer>& w, const std::optional<std::string>& s) {
  if (s)
    WriteString(w, *s);
  else
    w.Null();
}

std::string Line(const std::string& file, const char* op, std::int64_t time,
                 const MemoryPlace& place, const std::string& id,
                 const std::optional<std::string>& prev, const std::string& hash,
                 std::string_view content, const DirState& state) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("file");
  WriteString(w, file);
  w.Key("op");
  w.String(op);
  w.Key("time");
  w.Int64(time);
  w.Key("project");
  WriteOpt(w, place.project);
  w.Key("cwd");
  WriteOpt(w, place.cwd);
  w.Key("id");
  WriteString(w, id);
  w.Key("prev");
  WriteOpt(w, prev);
  w.Key("hash");
  WriteString(w, hash);
  w.Key("content");
  WriteString(w, content);
  w.Key("state");
  w.StartObject();
  for (const auto& [name, f] : state) {
    w.Key(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
    w.StartObject();
    w.Key("id");
    WriteString(w, f.id);
    w.Key("hash");
    WriteOpt(w, f.hash);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize()) + "\n";
}

// The chained id of a file's next line.
std::string NextId(const std::string& stream_key, const std::string& file, const DirState& state,
                   const char* op, const std::string& content_hash) {
  auto it = state.find(file);
  const std::string prev = it != state.end() ? it->second.id : stream_key + "\n" + file;
  return "memory:" + Sha256Hex(prev + "\n" + op + "\n" + content_hash);
}

// A listing's token: each file's name, size and mtime.
std::string ListingToken(const std::vector<DirFile>& files) {
  std::string digest;
  for (const DirFile& x : files)
    digest += x.name + '\0' + std::to_string(x.size) + '\0' + std::to_string(x.mtime_ns) + '\n';
  return Sha256Hex(digest);
}

}  // namespace

std::optional<SourceFile> MemoryStream(const std::string& dir, std::string key) {
  auto files = ListMarkdown(dir);
  if (!files) return std::nullopt;
  SourceFile f;
  f.abs_path = dir;
  f.key = std::move(key);
  f.generated = true;
  for (const DirFile& x : *files) {
    f.size += x.size;
    f.mtime_ns = std::max(f.mtime_ns, x.mtime_ns);
  }
  f.token = ListingToken(*files);
  return f;
}

std::string GenerateMemoryLines(const SourceFile& stream, std::string_view last_line,
                                std::size_t max_bytes, std::int64_t now_ms,
                                const MemoryPlace& place) {
  DirState state = StateOf(last_line);
  auto files = ListMarkdown(stream.abs_path);
  // A directory that cannot be listed now says nothing about its files.
  if (!files) throw SourceBusy("cannot read " + stream.abs_path);
  const std::vector<DirFile>& present = *files;
  std::string out;
  // New and changed files, oldest first.
  std::vector<DirFile> by_age = present;
  std::stable_sort(by_age.begin(), by_age.end(),
                   [](const DirFile& a, const DirFile& b) { return a.mtime_ns < b.mtime_ns; });
  for (const DirFile& f : by_age) {
    if (f.size > kMaxMemoryFileBytes) continue;  // left out
    auto content = ReadMemoryFile(stream.abs_path + "/" + f.name);
    if (!content) continue;  // left as it was
    const std::string hash = Sha256Hex(*content);
    auto it = state.find(f.name);
    if (it != state.end() && it->second.hash == hash) continue;
    const std::string id = NextId(stream.key, f.name, state, "write", hash);
    std::optional<std::string> prev;
    if (it != state.end()) prev = it->second.id;
    state[f.name] = {id, hash};
    out += Line(f.name, "write", f.mtime_ns / 1000000, place, id, prev, hash, *content, state);
    if (out.size() >= max_bytes) return out;
  }
  // Then the files that are gone (a directory gone: all of them).
  for (auto& [name, f] : state) {
    if (!f.hash) continue;
    bool there = std::any_of(present.begin(), present.end(),
                             [&n = name](const DirFile& p) { return p.name == n; });
    if (there) continue;
    const std::string id = NextId(stream.key, name, state, "delete", "");
    const std::string prev = f.id;
    f = {id, std::nullopt};
    out += Line(name, "delete", now_ms, place, id, prev, "", "", state);
    if (out.size() >= max_bytes) return out;
  }
  // Up to date with a directory that changed since discovery: its token
  // must not be recorded.  A file written and deleted again between the two
  // would leave the directory with the token recorded, and its deletion
  // unseen.  The next look (the change's own watch event) asks again.
  if (out.empty() && ListingToken(present) != stream.token)
    throw SourceBusy(stream.abs_path + " changed while it was read");
  return out;
}

ParsedLine ParseMemoryLine(std::string_view line, const MemoryReader& read) {
  rapidjson::Document doc;
  ParseObject(line, doc);
  auto file = Str(doc, "file");
  auto op = Str(doc, "op");
  auto id = Str(doc, "id");
  const Json* time = Member(doc, "time");
  if (!file || !op || !id || id->empty() || time == nullptr || !time->IsInt64() ||
      (*op != "write" && *op != "delete"))
    throw ParseError("not a memory stream line");
  ParsedEvent ev;
  ev.native_id = std::string(*id);
  ev.ts = time->GetInt64();
  ev.role = "system";
  ev.kind = "memory";
  ev.text = std::string(Str(doc, "content").value_or(""));
  ev.cwd = NonEmpty(doc, "cwd");
  ev.tool_name = std::string(*file);
  ev.call_id = std::string(*op);
  ParsedMemory m;
  m.file = ev.tool_name.value_or("");
  m.deleted = *op == "delete";
  m.time = ev.ts;
  m.prev_native_id = std::string(Str(doc, "prev").value_or(""));
  m.project = NonEmpty(doc, "project");
  if (!m.deleted) m.memory = read(m.file, ev.text);
  ParsedLine out;
  out.events.push_back(std::move(ev));
  out.memory = std::move(m);
  return out;
}

FrontMatter ParseFrontMatter(std::string_view content) {
  FrontMatter fm;
  auto line_end = [&](std::size_t from) {
    std::size_t nl = content.find('\n', from);
    return nl == std::string_view::npos ? content.size() : nl;
  };
  std::size_t first = line_end(0);
  if (TrimSpace(content.substr(0, first)) != "---") {
    fm.body = std::string(content);
    return fm;
  }
  std::size_t pos = first + 1;
  while (pos < content.size()) {
    std::size_t end = line_end(pos);
    std::string_view l = content.substr(pos, end - pos);
    pos = end + 1;
    if (TrimSpace(l) == "---") {
      fm.body = std::string(content.substr(std::min(pos, content.size())));
      return fm;
    }
    std::size_t colon = l.find(':');
    if (colon == std::string_view::npos || l.empty() || l[0] == ' ' || l[0] == '#') continue;
    std::string_view key = TrimSpace(l.substr(0, colon)), value = TrimSpace(l.substr(colon + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    fm.fields[std::string(key)] = std::string(value);
  }
  // No closing line: not front matter after all.
  fm.fields.clear();
  fm.body = std::string(content);
  return fm;
}

std::optional<ParsedMemory::Memory> MarkdownMemory(std::string_view file, std::string_view content,
                                                   const MemoryKind& kind_of) {
  FrontMatter fm = ParseFrontMatter(content);
  auto field = [&](const char* k) {
    auto it = fm.fields.find(k);
    return it == fm.fields.end() ? std::string() : it->second;
  };
  std::string head = field("name");
  if (std::string d = field("description"); !d.empty()) head += (head.empty() ? "" : ": ") + d;
  std::size_t b = fm.body.find_first_not_of(" \t\r\n");
  std::string body = b == std::string::npos ? "" : fm.body.substr(b);
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ' || body.back() == '\r'))
    body.pop_back();
  std::string text = head.empty() ? body : body.empty() ? head : head + "\n\n" + body;
  if (text.empty()) return std::nullopt;
  ParsedMemory::Memory m;
  m.kind = kind_of(file, field("type"));
  if (m.kind.empty()) return std::nullopt;
  m.text = std::move(text);
  if (std::string c = field("confidence"); !c.empty()) {
    char* end = nullptr;
    double v = std::strtod(c.c_str(), &end);
    if (end != nullptr && *end == '\0' && v >= 0 && v <= 1) m.confidence = v;
  }
  return m;
}

std::string ClaudeStyleKind(std::string_view file, const std::string& type) {
  if (file == "MEMORY.md") return "";
  if (type == "user" || type == "feedback") return "cognition";
  if (type == "project") return "memory";
  return "knowledge";
}

void AddMemoryStream(Discovery& d, const std::string& dir, std::string key) {
  if (auto stream = MemoryStream(dir, std::move(key))) {
    d.files.push_back(std::move(*stream));
    d.dirs.push_back(dir);
  }
}

std::string WithoutHashSuffix(std::string_view name, std::size_t hex_len) {
  std::size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || name.size() - dash - 1 != hex_len) return std::string(name);
  return std::string(name.substr(0, dash));
}

}  // namespace origin::adapters
