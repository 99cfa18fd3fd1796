// SPDX-License-Identifier: MIT
// The edits `origin mcp install` makes to the agents' settings: the pure
// merges (config_merge.hpp), and McpCommand on real files for what the
// merges cannot show alone (a refused file is left untouched, a second run
// writes nothing).
#include "client/config_merge.hpp"

#include <dirent.h>
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "client/connection.hpp"
#include "client/mcp_register.hpp"

using namespace origin::client;

namespace {

const std::string kShimPath = "/opt/origin/bin/origin-mcp";
const McpServer kShim{kShimPath, {}, {}};

rapidjson::Document Parse(const std::string& s) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseFullPrecisionFlag>(s.c_str());
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

// A temporary directory, removed (with what the test wrote) at the end;
// $HOME, $CODEX_HOME and $PATH point into it meanwhile.
class TempHome {
 public:
  TempHome() {
    char tmpl[] = "/tmp/origin-merge-test-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
    for (const char* v : {"HOME", "CODEX_HOME", "PATH"}) {
      const char* old = std::getenv(v);
      saved_.push_back({v, old ? std::optional<std::string>(old) : std::nullopt});
    }
    ::setenv("HOME", dir_.c_str(), 1);
    ::setenv("CODEX_HOME", (dir_ + "/.codex").c_str(), 1);
    ::setenv("PATH", (dir_ + "/bin").c_str(), 1);  // no agent's command
  }
  ~TempHome() {
    for (const auto& [k, v] : saved_)
      v ? ::setenv(k.c_str(), v->c_str(), 1) : ::unsetenv(k.c_str());
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }
  void Write(const std::string& rel, const std::string& text) const {
    std::string path = dir_ + "/" + rel;
    std::filesystem::create_directories(path.substr(0, path.rfind('/')));
    std::ofstream(path, std::ios::binary) << text;
  }
  std::string Read(const std::string& rel) const {
    std::ifstream in(dir_ + "/" + rel, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // The names in folder `rel`.
  std::set<std::string> List(const std::string& rel) const {
    std::set<std::string> out;
    if (DIR* d = ::opendir((dir_ + "/" + rel).c_str())) {
      while (dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') out.insert(e->d_name);
      ::closedir(d);
    }
    return out;
  }

 private:
  std::string dir_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace

TEST_SUITE("client") {
  TEST_CASE("config merge: JSON: an empty or missing file gets mcpServers.origin") {
    auto out = MergeJsonServer("", kShim, false);
    REQUIRE(out);
    CHECK(*out ==
          "{\n  \"mcpServers\": {\n    \"origin\": {\n      \"command\": "
          "\"/opt/origin/bin/origin-mcp\",\n      \"args\": []\n    }\n  }\n}\n");
    auto typed = MergeJsonServer("  \n", kShim, true);
    REQUIRE(typed);
    CHECK(Parse(*typed)["mcpServers"]["origin"]["type"] == "stdio");
  }

  TEST_CASE("config merge: JSON: every other member is kept, with its value exactly") {
    const std::string existing = R"({
  "numStartups": 12,
  "ratio": 0.1,
  "huge": 12345678901234567890,
  "precise": 3.141592653589793238,
  "name": "caf\u00e9 \"quoted\" \\ back",
  "mcpServers": {
    "other": {"command": "/bin/other", "args": ["-x"], "env": {"K": "V"}},
    "origin": {"command": "/old/origin-mcp", "args": ["--old"], "env": {"A": "1"},
               "timeout": 30, "url": "https://hub.example/mcp"}
  },
  "projects": {"/src/a": {"allowedTools": []}}
})";
    auto out = MergeJsonServer(existing, kShim, true);
    REQUIRE(out);
    rapidjson::Document before = Parse(existing), after = Parse(*out);
    for (const char* k : {"numStartups", "ratio", "huge", "precise", "name", "projects"})
      CHECK(after[k] == before[k]);
    CHECK(after["mcpServers"]["other"] == before["mcpServers"]["other"]);
    const auto& o = after["mcpServers"]["origin"];
    CHECK(o["command"] == kShimPath.c_str());
    CHECK(o["args"].IsArray());
    CHECK(o["args"].Empty());
    CHECK(o["type"] == "stdio");
    CHECK(o["env"] == before["mcpServers"]["origin"]["env"]);
    CHECK(o["timeout"].GetInt() == 30);
    CHECK_FALSE(o.HasMember("url"));  // a hub's server under this name: replaced
    // The members keep their order: the file reads as it did.
    CHECK(out->find("\"numStartups\"") < out->find("\"mcpServers\""));
    CHECK(out->find("\"mcpServers\"") < out->find("\"projects\""));
    CHECK(out->find("\"precise\": 3.141592653589793") != std::string::npos);
  }

  TEST_CASE("config merge: JSON: a second run changes nothing") {
    for (bool typed : {false, true}) {
      auto once = MergeJsonServer("{\"mcpServers\":{\"a\":{\"command\":\"x\"}}}", kShim, typed);
      REQUIRE(once);
      CHECK_FALSE(MergeJsonServer(*once, kShim, typed));
      // Registered by hand in another layout: still nothing to do.
      CHECK_FALSE(MergeJsonServer(std::string("{\"mcpServers\":{\"origin\":{") +
                                      (typed ? "\"type\":\"stdio\"," : "") +
                                      "\"args\":[],\"command\":\"" + kShimPath + "\",\"env\":{}}}}",
                                  kShim, typed));
    }
    // Another command, or arguments, or a missing type: changed.
    CHECK(MergeJsonServer("{\"mcpServers\":{\"origin\":{\"command\":\"/x\",\"args\":[]}}}", kShim,
                          false));
    CHECK(MergeJsonServer(
        "{\"mcpServers\":{\"origin\":{\"command\":\"" + kShimPath + "\",\"args\":[\"-v\"]}}}", kShim,
        false));
    CHECK(MergeJsonServer(
        "{\"mcpServers\":{\"origin\":{\"command\":\"" + kShimPath + "\",\"args\":[]}}}", kShim, true));
  }

  TEST_CASE("config merge: JSON: a file that is not what it should be is refused") {
    CHECK_THROWS_WITH_AS(MergeJsonServer("{\"a\": 1,}", kShim, false),
                         doctest::Contains("not valid JSON"), std::runtime_error);
    CHECK_THROWS_WITH_AS(MergeJsonServer("{\"a\": 1} trailing", kShim, false),
                         doctest::Contains("not valid JSON"), std::runtime_error);
    CHECK_THROWS_WITH_AS(MergeJsonServer("[1, 2]", kShim, false),
                         doctest::Contains("not a JSON object"), std::runtime_error);
    CHECK_THROWS_WITH_AS(MergeJsonServer("{\"mcpServers\": []}", kShim, false),
                         doctest::Contains("\"mcpServers\" is not an object"), std::runtime_error);
    CHECK_THROWS_WITH_AS(MergeJsonServer("{\"mcpServers\": {\"origin\": \"x\"}}", kShim, false),
                         doctest::Contains("\"origin\" is not an object"), std::runtime_error);
    // Deep nesting is an error, not a crash (the parser is iterative).
    CHECK_THROWS(MergeJsonServer(std::string(100000, '['), kShim, false));
  }

  TEST_CASE("config merge: TOML: a new table at the end, every other line kept") {
    const std::string table =
        "[mcp_servers.origin]\ncommand = \"/opt/origin/bin/origin-mcp\"\nargs = []\n";
    CHECK(*MergeCodexToml("", kShim) == table);
    const std::string kept =
        "# Codex settings\n"
        "model = \"o3\"  # the default\n"
        "\n"
        "[mcp_servers.other]\n"
        "command = \"/bin/other\"\n"
        "args = [\"--x\"]\n";
    // Blank lines at the end fold into the one before the new table.
    CHECK(*MergeCodexToml(kept + "\n\n", kShim) == kept + "\n" + table);
    // Without a final newline.
    CHECK(*MergeCodexToml("model = \"o3\"", kShim) == "model = \"o3\"\n\n" + table);
  }

  TEST_CASE("config merge: TOML: the table's other keys and comments stay where they are") {
    const std::string existing =
        "[mcp_servers.origin]  # ours\n"
        "# which binary\n"
        "command = \"/old/origin-mcp\"\n"
        "args = [\n"
        "  \"--old\",\n"
        "]\n"
        "tool_timeout_sec = 60\n"
        "url = \"https://hub.example/mcp\"\n"
        "\n"
        "[mcp_servers.origin.env]\n"
        "A = \"1\"\n"
        "\n"
        "[profiles.fast]\n"
        "model = \"o4-mini\"\n";
    auto out = MergeCodexToml(existing, kShim);
    REQUIRE(out);
    CHECK(*out ==
          "[mcp_servers.origin]  # ours\n"
          "# which binary\n"
          "command = \"/opt/origin/bin/origin-mcp\"\n"
          "args = []\n"
          "tool_timeout_sec = 60\n"
          "\n"
          "[mcp_servers.origin.env]\n"
          "A = \"1\"\n"
          "\n"
          "[profiles.fast]\n"
          "model = \"o4-mini\"\n");
    CHECK_FALSE(MergeCodexToml(*out, kShim));
    // Missing keys go right under the header; quoted header names count.
    CHECK(*MergeCodexToml("[mcp_servers.\"origin\"]\nenabled = true\n", kShim) ==
          "[mcp_servers.\"origin\"]\ncommand = \"/opt/origin/bin/origin-mcp\"\nargs = []\n"
          "enabled = true\n");
  }

  TEST_CASE("config merge: TOML: a second run changes nothing") {
    auto once = MergeCodexToml("# mine\n[a]\nb = 1\n", kShim);
    REQUIRE(once);
    CHECK_FALSE(MergeCodexToml(*once, kShim));
    std::string no_newline = *once;
    no_newline.pop_back();
    CHECK_FALSE(MergeCodexToml(no_newline, kShim));
  }

  TEST_CASE("config merge: TOML: a command that needs escapes is written as a TOML string") {
    auto out = MergeCodexToml("", McpServer{"/opt/a \"b\"\\c\td/origin-mcp", {}, {}});
    REQUIRE(out);
    CHECK(out->find("command = \"/opt/a \\\"b\\\"\\\\c\\u0009d/origin-mcp\"\n") !=
          std::string::npos);
    CHECK_FALSE(MergeCodexToml(*out, McpServer{"/opt/a \"b\"\\c\td/origin-mcp", {}, {}}));
  }

  TEST_CASE("config merge: TOML: forms the edit cannot change safely are refused") {
    CHECK_THROWS_WITH_AS(MergeCodexToml("[mcp_servers.origin]\n[mcp_servers.origin]\n", kShim),
                         doctest::Contains("twice"), std::runtime_error);
    CHECK_THROWS_WITH_AS(MergeCodexToml("[mcp_servers]\norigin = { command = \"/x\" }\n", kShim),
                         doctest::Contains("in a form origin does not edit"), std::runtime_error);
    CHECK_THROWS_WITH_AS(MergeCodexToml("mcp_servers.origin.command = \"/x\"\n", kShim),
                         doctest::Contains("in a form origin does not edit"), std::runtime_error);
    // A table of the same prefix is another table.
    CHECK(MergeCodexToml("[mcp_servers.origin2]\ncommand = \"/x\"\n", kShim));
  }

  TEST_CASE("config merge: install leaves a file it refuses untouched, and runs once") {
    TempHome home;
    // SiblingExe finds the build's origin-mcp beside tests/ (../client).
    REQUIRE(SiblingExe("origin-mcp", "client").front() == '/');
    struct Refused {
      const char* agent;
      std::string dir, file, text;
    };
    for (const Refused& r :
         {Refused{"codex", ".codex", "config.toml",
                  "model = \"o3\"\n[mcp_servers]\norigin = { command = \"/x\" }\n"},
          Refused{"cursor", ".cursor", "mcp.json", "{\"mcpServers\": {\"origin\": 1}}"}}) {
      CAPTURE(r.agent);
      home.Write(r.dir + "/" + r.file, r.text);
      CHECK(McpCommand({"install", r.agent}) == 1);
      CHECK(home.Read(r.dir + "/" + r.file) == r.text);
      CHECK(home.List(r.dir) == std::set<std::string>{r.file});  // no backup
    }

    const std::string good = "# mine\nmodel = \"o3\"\n";
    home.Write(".codex/config.toml", good);
    CHECK(McpCommand({"install", "codex"}) == 0);
    const std::string written = home.Read(".codex/config.toml");
    CHECK(written.rfind(good, 0) == 0);
    CHECK(written.find("[mcp_servers.origin]") != std::string::npos);
    std::set<std::string> files = home.List(".codex");
    CHECK(files.size() == 2);  // the file and one backup of the old one
    CHECK(McpCommand({"install", "codex"}) == 0);
    CHECK(home.Read(".codex/config.toml") == written);
    CHECK(home.List(".codex") == files);  // no second backup
  }

  TEST_CASE("config merge: JSONC: Cursor's comments and the other servers' layout are kept") {
    const std::string cursor =
        "// Cursor MCP servers\n"
        "{\n"
        "  // the linter\n"
        "  \"mcpServers\": {\n"
        "    \"lint\": { \"command\": \"lint-mcp\", \"args\": [\"--fast\"] }, // keep me\n"
        "    /* block */\n"
        "    \"other\": {\"command\": \"other-mcp\"},\n"
        "  },\n"
        "}\n";
    auto out = MergeJsonServer(cursor, kShim, false, true);
    REQUIRE(out);
    CHECK(*out ==
          "// Cursor MCP servers\n"
          "{\n"
          "  // the linter\n"
          "  \"mcpServers\": {\n"
          "    \"lint\": { \"command\": \"lint-mcp\", \"args\": [\"--fast\"] }, // keep me\n"
          "    /* block */\n"
          "    \"other\": {\"command\": \"other-mcp\"},\n"
          "    \"origin\": {\n"
          "      \"command\": \"/opt/origin/bin/origin-mcp\",\n"
          "      \"args\": []\n"
          "    },\n"
          "  },\n"
          "}\n");
    CHECK_FALSE(MergeJsonServer(*out, kShim, false, true));  // a second run
    auto read = ReadJsonServer(*out, true);
    REQUIRE(read);
    CHECK(read->command == kShimPath);
    CHECK(read->args.empty());
    // Uninstall gives the file back as it was.
    auto removed = RemoveJsonServer(*out, true);
    REQUIRE(removed);
    CHECK(*removed == cursor);
    CHECK_FALSE(RemoveJsonServer(cursor, true));
    CHECK_FALSE(ReadJsonServer(cursor, true));
  }

  TEST_CASE("config merge: JSONC: a comment that ends the last server's line stays on it") {
    auto out = MergeJsonServer(
        "{\n  \"mcpServers\": {\n    \"lint\": {\"command\": \"lint-mcp\"} // the linter\n  }\n}\n",
        kShim, false, true);
    REQUIRE(out);
    CHECK(*out ==
          "{\n  \"mcpServers\": {\n    \"lint\": {\"command\": \"lint-mcp\"}, // the linter\n"
          "    \"origin\": {\n      \"command\": \"/opt/origin/bin/origin-mcp\",\n"
          "      \"args\": []\n    }\n  }\n}\n");
  }

  TEST_CASE("config merge: JSON: an edit that would lose a comment, or a strict file with one, "
            "is refused") {
    const std::string commented_args =
        "{\"mcpServers\": {\"origin\": {\"command\": \"/opt/origin/bin/origin-mcp\",\n"
        "  \"args\": [/* why */ \"--old\"]}}}";
    CHECK_THROWS_WITH_AS(MergeJsonServer(commented_args, kShim, false, true),
                         doctest::Contains("would lose a comment"), std::runtime_error);
    // Claude Code's file is JSON: a comment there is an error, not a thing to keep.
    CHECK_THROWS_WITH_AS(MergeJsonServer("{// x\n}", kShim, true, false),
                         doctest::Contains("not valid JSON"), std::runtime_error);
    CHECK_THROWS_WITH_AS(
        MergeJsonServer("{\"mcpServers\": {\"origin\": {}, \"origin\": {}}}", kShim, false, true),
        doctest::Contains("twice"), std::runtime_error);
    CHECK_THROWS_WITH_AS(MergeJsonServer("{/* open", kShim, false, true),
                         doctest::Contains("not closed"), std::runtime_error);
    // The block printed instead is what the edit would have made.
    const std::string block = RenderJsonServer(McpServer{kShimPath, {}, {{"ORIGIN_HOME", "/d"}}}, true);
    rapidjson::Document d = Parse("{" + block + "}");
    CHECK(d["origin"]["type"] == "stdio");
    CHECK(d["origin"]["env"]["ORIGIN_HOME"] == "/d");
  }

  TEST_CASE("config merge: JSON: ORIGIN_HOME goes into env when the store is not the default, "
            "and out again") {
    const std::string existing =
        "{\n  \"mcpServers\": {\n    \"origin\": {\n      // ours\n"
        "      \"command\": \"/old/origin-mcp\",\n      \"args\": []\n    }\n  }\n}\n";
    const McpServer with_home{kShimPath, {}, {{"ORIGIN_HOME", "/data/origin"}}};
    auto out = MergeJsonServer(existing, with_home, false, true);
    REQUIRE(out);
    CHECK(*out ==
          "{\n  \"mcpServers\": {\n    \"origin\": {\n      // ours\n"
          "      \"command\": \"/opt/origin/bin/origin-mcp\",\n      \"args\": [],\n"
          "      \"env\": {\n        \"ORIGIN_HOME\": \"/data/origin\"\n      }\n    }\n  }\n}\n");
    CHECK_FALSE(MergeJsonServer(*out, with_home, false, true));
    CHECK(ReadJsonServer(*out, true)->env.at("ORIGIN_HOME") == "/data/origin");
    // Another variable of the user's stays; ORIGIN_HOME changes in place.
    auto other = MergeJsonServer(
        "{\"mcpServers\":{\"origin\":{\"command\":\"/opt/origin/bin/origin-mcp\",\"args\":[],"
        "\"env\":{\"A\":\"1\",\"ORIGIN_HOME\":\"/old\"}}}}",
        with_home, false);
    REQUIRE(other);
    CHECK(*other ==
          "{\"mcpServers\":{\"origin\":{\"command\":\"/opt/origin/bin/origin-mcp\",\"args\":[],"
          "\"env\":{\"A\":\"1\",\"ORIGIN_HOME\":\"/data/origin\"}}}}");
    // Back to the default store: ORIGIN_HOME goes, A stays.
    auto back = MergeJsonServer(*other, kShim, false);
    REQUIRE(back);
    CHECK(*back ==
          "{\"mcpServers\":{\"origin\":{\"command\":\"/opt/origin/bin/origin-mcp\",\"args\":[],"
          "\"env\":{\"A\":\"1\"}}}}");
  }

  TEST_CASE("config merge: JSON: uninstall removes only mcpServers.origin") {
    CHECK(*RemoveJsonServer("{\"mcpServers\": {\"origin\": {\"command\": \"x\"}}, \"n\": 1}") ==
          "{\"mcpServers\": {}, \"n\": 1}");
    CHECK(*RemoveJsonServer("{\n  \"mcpServers\": {\n    \"origin\": {\"command\": \"x\"},\n"
                            "    \"b\": {\"command\": \"y\"}\n  }\n}\n") ==
          "{\n  \"mcpServers\": {\n    \"b\": {\"command\": \"y\"}\n  }\n}\n");
    CHECK_FALSE(RemoveJsonServer("{\"mcpServers\": {\"b\": {}}}"));
    CHECK_FALSE(RemoveJsonServer(""));
    CHECK_THROWS(RemoveJsonServer("{\"mcpServers\": "));
  }

  TEST_CASE("config merge: TOML: ORIGIN_HOME in env, in each form Codex reads") {
    const McpServer with_home{kShimPath, {}, {{"ORIGIN_HOME", "/data/origin"}}};
    CHECK(*MergeCodexToml("", with_home) ==
          "[mcp_servers.origin]\ncommand = \"/opt/origin/bin/origin-mcp\"\nargs = []\n"
          "env = { ORIGIN_HOME = \"/data/origin\" }\n");
    // An inline env of the user's: the key is added to it.
    const std::string inline_env =
        "[mcp_servers.origin]\ncommand = \"/opt/origin/bin/origin-mcp\"\nargs = []\n"
        "env = { A = \"1\" }  # mine\n";
    auto out = MergeCodexToml(inline_env, with_home);
    REQUIRE(out);
    CHECK(*out ==
          "[mcp_servers.origin]\ncommand = \"/opt/origin/bin/origin-mcp\"\nargs = []\n"
          "env = { A = \"1\", ORIGIN_HOME = \"/data/origin\" }  # mine\n");
    CHECK_FALSE(MergeCodexToml(*out, with_home));
    CHECK(*MergeCodexToml(*out, kShim) == inline_env);
    // An [mcp_servers.origin.env] table.
    const std::string table =
        "[mcp_servers.origin]\ncommand = \"/opt/origin/bin/origin-mcp\"\nargs = []\n\n"
        "[mcp_servers.origin.env]\nA = \"1\"\n";
    auto t = MergeCodexToml(table, with_home);
    REQUIRE(t);
    CHECK(*t == "[mcp_servers.origin]\ncommand = \"/opt/origin/bin/origin-mcp\"\nargs = []\n\n"
                "[mcp_servers.origin.env]\nORIGIN_HOME = \"/data/origin\"\nA = \"1\"\n");
    CHECK_FALSE(MergeCodexToml(*t, with_home));
    auto read = ReadCodexToml(*t);
    REQUIRE(read);
    CHECK(read->command == kShimPath);
    CHECK(read->env == std::map<std::string, std::string>{{"A", "1"}, {"ORIGIN_HOME", "/data/origin"}});
    CHECK(*MergeCodexToml(*t, kShim) == table);
    // An env origin cannot read is refused.
    CHECK_THROWS_WITH_AS(
        MergeCodexToml("[mcp_servers.origin]\nenv = { A = 1 }\n", with_home),
        doctest::Contains("form origin does not edit"), std::runtime_error);
  }

  TEST_CASE("config merge: TOML: uninstall removes the table and its subtables, nothing else") {
    const std::string kept = "# Codex\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"o\"\n";
    const std::string with =
        kept + "\n[mcp_servers.origin]\ncommand = \"/x\"\nargs = [\n  \"-a\",\n]\n\n"
               "[mcp_servers.origin.env]\nORIGIN_HOME = '/d'\n\n[profiles.fast]\nmodel = \"m\"\n";
    auto read = ReadCodexToml(with);
    REQUIRE(read);
    CHECK(read->command == "/x");
    CHECK(read->args == std::vector<std::string>{"-a"});
    CHECK(read->env.at("ORIGIN_HOME") == "/d");
    auto out = RemoveCodexToml(with);
    REQUIRE(out);
    CHECK(*out == kept + "\n[profiles.fast]\nmodel = \"m\"\n");
    CHECK_FALSE(RemoveCodexToml(*out));
    CHECK_FALSE(ReadCodexToml(*out));
  }
}
