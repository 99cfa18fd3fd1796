// SPDX-License-Identifier: MIT
// No line of a log can crash a parser (design principles: bad input gets a
// clear error).  Every line the fixtures mirror, for all five agents and
// every kind of stream (files, generated streams, memory streams), is
// parsed again after mutations: each value replaced by values of every other
// type, bytes flipped, cut and repeated (a fixed seed), and a set of lines
// no agent writes.  A parser may throw (the line is a parse error) but must
// not crash, hang or read out of bounds (the CI build runs under ASan and
// UBSan).

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/grok/grok.hpp"
#include "adapters/zcode/zcode.hpp"
#include "core/store/mirror.hpp"
#include "tests/support/agent_fixtures.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
namespace fs = std::filesystem;

namespace {

// The values of a document in depth-first order.
void Values(rapidjson::Value& v, std::vector<rapidjson::Value*>& out, std::size_t cap) {
  if (out.size() >= cap) return;
  out.push_back(&v);
  if (v.IsObject())
    for (auto& m : v.GetObject()) Values(m.value, out, cap);
  else if (v.IsArray())
    for (auto& e : v.GetArray()) Values(e, out, cap);
}

std::string Write(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return std::string(sb.GetString(), sb.GetSize());
}

// Lines made from `seed`: each of its values (up to 80) replaced by each of
// the replacements, then byte-level mutations.
std::vector<std::string> Mutations(const std::string& seed, std::mt19937& rng) {
  std::vector<std::string> out;
  rapidjson::Document doc;
  doc.Parse(seed.data(), seed.size());
  if (!doc.HasParseError()) {
    std::vector<rapidjson::Value*> values;
    Values(doc, values, 80);
    static const char* replacements[] = {
        "null", "0",  "-1",   "1.5e308", "18446744073709551615", "\"\"", "\"x\"",
        "[]",   "{}", "true", "[{}]",    "\"\\u0000\\ud800\""};
    for (std::size_t k = 0; k < values.size(); ++k)
      for (const char* r : replacements) {
        rapidjson::Document copy;
        copy.CopyFrom(doc, copy.GetAllocator());
        std::vector<rapidjson::Value*> cv;
        Values(copy, cv, 80);
        rapidjson::Document rep(&copy.GetAllocator());
        rep.Parse(r);
        cv[k]->CopyFrom(rep, copy.GetAllocator());
        out.push_back(Write(copy));
      }
  }
  for (int i = 0; i < 40 && !seed.empty(); ++i) {
    std::string m = seed;
    std::uniform_int_distribution<std::size_t> at(0, m.size() - 1);
    switch (i % 4) {
      case 0:
        m[at(rng)] = static_cast<char>(rng());
        break;
      case 1:
        m.resize(at(rng));
        break;
      case 2: {
        const std::size_t a = at(rng);
        m.insert(a, m.substr(a, 16));
        break;
      }
      default:
        m.erase(at(rng), 8);
    }
    out.push_back(m);
  }
  return out;
}

std::vector<std::string> Fixed() {
  return {
      "",
      "{}",
      "[]",
      "null",
      "1",
      "\"s\"",
      std::string(100000, '['),
      std::string(50000, '{') + "\"a\":1",
      R"({"a":)" + std::string(300, '[') + std::string(300, ']') + "}",
      "\xff\xfe\xfd",
      R"({"type":"user","message":{"content":[)" + std::string(20000, '1') + "]}}",
      R"({"item_id":"x","ts":1,"item":{"role":"user","message":{"content":[{"type":"tool_use","input":[]}]}}})",
      R"({"composer":{"id":"c"},"bubble":{"id":"b","type":2,"tool":{"name":7,"status":"completed"}}})",
      R"({"id":"t:1","tab":{"id":"t"},"index":-1,"bubble":{"type":"ai","text":7}})"};
}

}  // namespace

TEST_SUITE("adapters") {
  TEST_CASE("adapters: no mutation of a mirrored line crashes a parser") {
    ScopedTempDir d;
    std::vector<std::unique_ptr<SourceAdapter>> agents;
    for (const char* agent : FixtureAgents()) agents.push_back(AgentFixture(agent, d / agent));

    std::mt19937 rng(20261130);
    std::int64_t parsed = 0, refused = 0;
    for (const auto& a : agents) {
      const std::vector<MirroredLine> seeds = MirroredLines(*a);
      INFO(a->id());
      CHECK(seeds.size() > 2);
      std::set<std::string> keys;
      for (const MirroredLine& s : seeds) keys.insert(s.key);
      for (const MirroredLine& s : seeds) {
        std::vector<std::string> lines = Mutations(s.line, rng);
        if (s.key == *keys.begin())
          for (std::string& f : Fixed()) lines.push_back(std::move(f));
        // One carried state per stream, as the ingester keeps it.
        std::unique_ptr<FileState> state = a->LoadState(s.key, "");
        std::int64_t n = 0;
        for (const std::string& line : lines) {
          ParseContext ctx{d.path(), s.key, ++n, state.get()};
          try {
            ParsedLine p = a->ParseLine(line, ctx);
            ++parsed;
          } catch (const std::exception&) {
            ++refused;
          }
          if (state) state = a->LoadState(s.key, state->Save());
        }
      }
    }
    MESSAGE("parsed " << parsed << ", refused " << refused);
    CHECK(parsed > 1000);
    CHECK(refused > 1000);
  }
}

namespace {

// Rows an agent never writes, in the databases and files adapters read.
void Garbage(const std::string& root) {
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  fs::create_directories(root + "/zcode/cli/db");
  {
    Db db(root + "/zcode/cli/db/db.sqlite", Db::Mode::kReadWrite);
    CreateZcodeSchema(db);
    db.Exec("INSERT INTO session VALUES (NULL, NULL, 'sess_x', NULL, NULL, NULL, NULL, 'x', NULL)");
    db.Exec(
        "INSERT INTO message VALUES (NULL, NULL, NULL, NULL, NULL), ('m1', 's', 'x', 'y', 'no'), "
        "('m2', 's', 1, 5, x'00ff'), ('m3', 's', 2, 6, '" +
        deep +
        "'), "
        "('m4', 'sess_x', 3, 7, '{\"role\":\"user\"}'), ('m5', 's', 9, 8, '[]')");
    db.Exec(
        "INSERT INTO part VALUES ('p1', 'm4', 'sess_x', 1, 'x', '{\"type\":\"tool\"}'), "
        "('p2', 'm4', 'sess_x', 2, 1, '{\"type\":\"tool\",\"state\":7}'), "
        "('p3', 'm4', 'sess_x', 3, 1, NULL), ('p4', 'm4', NULL, NULL, NULL, '" +
        deep +
        "'), "
        "('p5', 'm4', 'sess_x', 5, 1, '{\"type\":\"text\",\"text\":[1]}')");
  }
  {
    // A cursor-agent chat: meta that is not hex, a root whose tree cycles
    // and whose lengths overflow.
    const std::string dir = root + "/cursor/chats/ws/agent";
    fs::create_directories(dir);
    Db db(dir + "/store.db", Db::Mode::kReadWrite);
    db.Exec("CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE blobs (id TEXT, data BLOB)");
    const std::string id(64, 'a');
    db.Exec("INSERT INTO meta VALUES ('0', 'zz'), ('1', '{\"latestRootBlobId\":\"" + id +
            "\",\"createdAt\":\"nope\"}'), (NULL, NULL)");
    std::string tree = "\x0a\x20" + std::string(32, '\xaa');     // itself
    tree += "\x0a\xff\xff\xff\xff\x0f";                          // a length past the end
    tree += "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";  // a varint too long
    auto put = db.Prepare("INSERT INTO blobs VALUES (?, ?)");
    put.Bind(1, id).BindBlob(2, tree.data(), tree.size()).Run();
    put.Reset();
    put.Bind(1, std::string(64, 'b')).BindBlob(2, "{", 1).Run();
  }
  {
    const std::string ide = root + "/cursor/ide-user";
    PutCursorConversation(ide + "/globalStorage/state.vscdb", "c1", "completed",
                          {{"b1", "not json"}, {"b2", deep}, {"b3", "[]"}});
    Db db(ide + "/globalStorage/state.vscdb", Db::Mode::kReadWrite);
    db.Exec("INSERT INTO cursorDiskKV VALUES ('composerData:c2', '" + deep +
            "'), ('composerData:c3', '{\"conversation\":7,\"status\":3}'), "
            "('composerData:c4', '{\"conversation\":[1,{\"bubbleId\":5},{\"bubbleId\":\"x\"}],"
            "\"conversationMap\":[]}'), ('bubbleId:nocolon', '{}'), ('bubbleId::', NULL), "
            "('bubbleId:c1:', 12), ('composerData:', x'00')");
    PutCursorWorkspace(
        ide + "/workspaceStorage/w1", "file:///%zz%", {"c1"},
        R"({"tabs":[7,{"tabId":5},{"tabId":"t","bubbles":[null,{"type":"ai","text":{}}]}]})");
    WriteFile(ide + "/workspaceStorage/w2/workspace.json", deep);
    WriteFile(ide + "/workspaceStorage/w2/state.vscdb", "not a database");
    WriteFile(root + "/cursor/projects/p/agent-transcripts/t1/t1.jsonl",
              std::string("\x00\xff{\"role\":\"user\"}\n", 18) + deep + "\n{\"message\":7}");
  }
  WriteFile(root + "/grok/sessions/%2Fx/u1/summary.json", deep);
  WriteFile(root + "/grok/sessions/%2Fx/u2/summary.json", "{\"title_is_manual\":1}");
  WriteFile(root + "/grok/sessions/%2Fx/u2/chat_history.jsonl", "[]\n" + deep + "\n{\"type\":7}\n");
  WriteFile(root + "/grok/memory/MEMORY.md", std::string("\xff\xfe---\n---\n", 11));
}

}  // namespace

TEST_SUITE("adapters") {
  TEST_CASE("adapters: databases and files holding what no agent writes crash no adapter") {
    ScopedTempDir d;
    Garbage(d.path());
    adapters::ZcodeAdapter z(d / "zcode");
    adapters::CursorAdapter c(d / "cursor", d / "cursor/ide-user");
    adapters::GrokAdapter g(d / "grok");
    const auto before = HashTree(d.path());
    TestStore s;
    Ingester ing(*s.db, *s.mirrors, s.clock);
    for (const SourceAdapter* a : std::vector<const SourceAdapter*>{&z, &c, &g}) {
      INFO(a->id());
      SyncReport r;
      CHECK_NOTHROW(r = ing.Sync({a}, {}));
      CHECK_NOTHROW(ing.Sync({a}, {}));  // and again, from what was mirrored
      for (const std::string& e : r.sources.at(0).errors) MESSAGE(e);
    }
    CHECK(HashTree(d.path()) == before);
  }
}
