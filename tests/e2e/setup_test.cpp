// SPDX-License-Identifier: MIT
// End to end, the setting up and the conveniences of issue 13 (points 9 and
// 10): origin mcp install/status/uninstall with a real daemon and the real
// origin-mcp, origin-mcp's own --help and --version, origin service without
// a user bus, origin export, origin doctor, and the shell completion and man
// page generated from the command table (bash completes for real).
#include <doctest/doctest.h>
#include <poll.h>
#include <pty.h>
#include <rapidjson/document.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/e2e/daemon_fixture.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string Exe(const char* var) {
  const char* v = std::getenv(var);
  REQUIRE_MESSAGE(v != nullptr, var << " is not set");
  return v;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// JSON, comments and trailing commas allowed (what Cursor reads).
rapidjson::Document Jsonc(const std::string& s) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag>(s.c_str());
  REQUIRE_MESSAGE(!d.HasParseError(), "not JSONC: " << s);
  return d;
}

// A --json failure: one JSON object on stderr, {"error":{"code","message"}}.
void CheckJsonError(const RunResult& r, int status, const std::string& code) {
  CHECK(r.status == status);
  CHECK(r.out.empty());
  rapidjson::Document d;
  d.Parse(r.err.c_str());
  REQUIRE_MESSAGE(!d.HasParseError(), "stderr is not JSON: " << r.err);
  REQUIRE(d.HasMember("error"));
  CHECK(std::string(d["error"]["code"].GetString()) == code);
  CHECK(std::string(d["error"]["message"].GetString()).size() > 0);
}

void Executable(const std::string& path, const std::string& text) {
  WriteFile(path, text);
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("setup: mcp install writes ORIGIN_HOME, keeps Cursor's comments; status runs the "
            "command; uninstall gives the file back") {
    DaemonFixture f;
    f.Start();
    const std::string cursor_json = f.cursor() + "/mcp.json";
    const std::string original =
        "// my servers\n{\n  \"mcpServers\": {\n    /* lint */ \"lint\": {\"command\": \"lint-mcp\"},\n"
        "  },\n}\n";
    WriteFile(cursor_json, original);
    RunResult r = f.Cli({"mcp", "install", "cursor"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    std::string written = Read(cursor_json);
    CHECK(Has(written, "// my servers\n"));
    CHECK(Has(written, "    /* lint */ \"lint\": {\"command\": \"lint-mcp\"},\n"));
    rapidjson::Document d = Jsonc(written);
    // The fixture's store is not ~/.origin: the agent is told which one.
    CHECK(std::string(d["mcpServers"]["origin"]["env"]["ORIGIN_HOME"].GetString()) == f.home());
    CHECK(std::string(d["mcpServers"]["origin"]["command"].GetString()) == Exe("ORIGIN_MCP"));

    // Codex with a command that does not answer.
    WriteFile(f.codex() + "/config.toml",
              "model = \"o3\"\n\n[mcp_servers.origin]\ncommand = \"/bin/false\"\nargs = []\n");
    r = f.Cli({"mcp", "status", "--json"});
    CHECK(r.status == 1);  // codex's does not answer
    d = Json(r.out);
    CHECK(std::string(d["store"].GetString()) == f.home());
    CHECK_FALSE(d["ok"].GetBool());
    bool saw_cursor = false, saw_codex = false, saw_claude = false;
    for (const auto& a : d["agents"].GetArray()) {
      const std::string agent = a["agent"].GetString();
      if (agent == "cursor") {
        saw_cursor = true;
        CHECK(a["registered"].GetBool());
        CHECK_MESSAGE(a["answers"].GetBool(), r.out);
        CHECK(std::string(a["store"].GetString()) == f.home());
        CHECK(a["store_is_yours"].GetBool());
        CHECK(Has(a["server"].GetString(), "origin"));
      } else if (agent == "codex") {
        saw_codex = true;
        CHECK(a["registered"].GetBool());
        CHECK_FALSE(a["answers"].GetBool());
        CHECK(Has(a["problem"].GetString(), "exited with status 1"));
        CHECK_FALSE(a["store_is_yours"].GetBool());  // no ORIGIN_HOME: ~/.origin
      } else if (agent == "claude-code") {
        saw_claude = true;
        CHECK_FALSE(a["registered"].GetBool());
      }
    }
    CHECK((saw_cursor && saw_codex && saw_claude));
    r = f.Cli({"mcp", "status", "cursor"}, {{"NO_COLOR", "1"}});
    CHECK(r.status == 0);
    CHECK(Has(r.out, "answers: yes"));
    CHECK(Has(r.out, "store:   " + f.home()));
    r = f.Cli({"mcp", "status", "codex"}, {{"NO_COLOR", "1"}});
    CHECK(r.status == 1);
    CHECK(Has(r.out, "answers: no"));
    CHECK(Has(r.out, "not the store you use"));

    // Uninstall: the file as it was; Codex's other settings kept.
    r = f.Cli({"mcp", "uninstall", "cursor"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(Read(cursor_json) == original);
    CHECK(f.Cli({"mcp", "uninstall", "codex", "--print"}).status == 0);
    CHECK(Has(Read(f.codex() + "/config.toml"), "[mcp_servers.origin]"));
    CHECK(f.Cli({"mcp", "uninstall", "codex"}).status == 0);
    CHECK(Read(f.codex() + "/config.toml") == "model = \"o3\"\n");
    r = f.Cli({"mcp", "status", "--json"});
    CHECK(r.status == 0);
    d = Json(r.out);
    for (const auto& a : d["agents"].GetArray()) CHECK_FALSE(a["registered"].GetBool());
    CHECK(Has(f.Cli({"mcp", "uninstall", "cursor"}).out, "not registered"));
  }

  TEST_CASE("setup: a file origin cannot edit safely is left alone, and the block to paste "
            "printed, exit 1") {
    DaemonFixture f;
    const std::string cursor_json = f.cursor() + "/mcp.json";
    const std::string text =
        "{\"mcpServers\": {\"origin\": {\"command\": \"/old\", \"args\": [/* keep */ \"-x\"]}}}\n";
    WriteFile(cursor_json, text);
    RunResult r = f.Cli({"mcp", "install", "cursor"});
    CHECK(r.status == 1);
    CHECK(Has(r.err, "would lose a comment"));
    CHECK(Has(r.out, "\"origin\": {"));
    CHECK(Has(r.out, Exe("ORIGIN_MCP")));
    CHECK(Has(r.out, "\"ORIGIN_HOME\": \"" + f.home() + "\""));
    CHECK(Read(cursor_json) == text);
    CHECK(std::filesystem::directory_iterator(f.cursor()) != std::filesystem::directory_iterator());
    std::size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(f.cursor())) files += e.is_regular_file();
    CHECK(files == 1);  // no backup: nothing was written
  }

  TEST_CASE("setup: mcp's bad usage, with --json errors as JSON on stderr") {
    DaemonFixture f;
    CHECK(f.Cli({"mcp", "frobnicate"}).status == 2);
    CHECK(f.Cli({"mcp", "install", "emacs"}).status == 2);
    CHECK(f.Cli({"mcp", "status", "--print"}).status == 2);
    CHECK(f.Cli({"mcp", "status", "--limit", "3"}).status == 2);
    CHECK(f.Cli({"mcp", "status", "cursor", "codex"}).status == 2);
    CHECK(f.Cli({"mcp", "--print"}).status == 2);
    CheckJsonError(f.Cli({"mcp", "status", "emacs", "--json"}), 2, "invalid_argument");
    CheckJsonError(f.Cli({"mcp", "install", "--json"}), 2, "invalid_argument");
    CheckJsonError(f.Cli({"mcp", "status", "--bogus", "--json"}), 2, "usage");
    RunResult r = f.Cli({"help", "mcp"});
    CHECK(r.status == 0);
    CHECK(Has(r.out, "uninstall"));
    CHECK(Has(r.out, "status"));
  }

  TEST_CASE("setup: origin-mcp --version and --help print and exit; on a terminal it says on "
            "stderr what it is") {
    const std::string mcp = Exe("ORIGIN_MCP");
    RunResult r = Run({mcp, "--version"}, {});
    CHECK(r.status == 0);
    CHECK(r.out.rfind("origin-mcp 0.", 0) == 0);
    r = Run({mcp, "--help"}, {});
    CHECK(r.status == 0);
    CHECK(Has(r.out, "usage: origin-mcp"));
    CHECK(Has(r.out, "origin mcp install"));
    r = Run({mcp, "--frobnicate"}, {});
    CHECK(r.status == 2);
    CHECK(r.out.empty());

    // On a terminal: a note, then it waits for JSON-RPC; Ctrl-D ends it.
    int term = -1;
    winsize size{};
    size.ws_row = 24;
    size.ws_col = 80;
    const pid_t pid = ::forkpty(&term, nullptr, nullptr, &size);
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::setenv("ORIGIN_NO_AUTOSTART", "1", 1);
      ::setenv("ORIGIN_HOME", "/nonexistent/origin-test-home", 1);
      ::execl(mcp.c_str(), mcp.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    bool eof_sent = false;
    for (;;) {
      pollfd p{term, POLLIN, 0};
      if (std::chrono::steady_clock::now() > deadline) break;
      if (::poll(&p, 1, 200) <= 0) continue;
      char buf[4096];
      ssize_t n = ::read(term, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      if (!eof_sent && Has(out, "Ctrl-D ends it")) {
        REQUIRE(::write(term, "\x04", 1) == 1);
        eof_sent = true;
      }
    }
    ::close(term);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(eof_sent);
    CHECK(Has(out, "this is Origin's MCP server"));
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }

  TEST_CASE("setup: service install without a user bus changes nothing and says what to do; "
            "uninstall exits 1 when systemctl fails") {
    DaemonFixture f;
    f.Start();
    const std::string bin = f.dir() / "fakebin";
    // systemctl as it answers where there is no user session.
    Executable(bin + "/systemctl",
               "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n");
    const std::string config = f.dir() / "config";
    std::map<std::string, std::string> env = {
        {"PATH", bin + ":" + std::string(std::getenv("PATH"))}, {"XDG_CONFIG_HOME", config}};
    RunResult r = f.Cli({"service", "install"}, env);
    CHECK(r.status == 1);
    CHECK(Has(r.err, "loginctl enable-linger"));
    CHECK(Has(r.err, "No medium found"));
    CHECK_FALSE(std::filesystem::exists(config + "/systemd/user/originsd.service"));
    CHECK(f.Cli({"status", "--json"}).status == 0);  // the daemon still runs
    CHECK(f.running());

    WriteFile(config + "/systemd/user/originsd.service", "[Service]\n");
    r = f.Cli({"service", "uninstall"}, env);
    CHECK(r.status == 1);
    CHECK(Has(r.err, "systemctl --user disable --now originsd.service failed"));
    CHECK_FALSE(std::filesystem::exists(config + "/systemd/user/originsd.service"));
    CHECK(f.Cli({"service", "frobnicate"}, env).status == 2);
    CHECK(f.Cli({"service", "install", "--bogus"}, env).status == 2);
  }

  TEST_CASE("setup: origin export: a Markdown transcript with tool calls folded, and the "
            "session's own lines") {
    DaemonFixture f;
    const std::string sid = "5f0c2a9e-8d1b-4c3e-9a7f-2b6d1e0c4a11";
    auto line = [&](const std::string& uuid, const std::string& type, const std::string& ts,
                    const std::string& message) {
      return R"({"type":")" + type + R"(","uuid":")" + uuid + R"(","sessionId":")" + sid +
             R"(","timestamp":"2026-01-05T10:00:)" + ts +
             R"(.000Z","cwd":"/home/dev/app","version":"2.1.12","message":)" + message + "}\n";
    };
    const std::string log =
        line("u1", "user", "00", R"({"role":"user","content":"list the <files> & more"})") +
        line("a1", "assistant", "05",
             R"({"role":"assistant","model":"claude-x","content":[{"type":"text","text":"Looking."},)"
             R"({"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls ```x```"}}]})") +
        line("u2", "user", "06",
             R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}]})") +
        line("a2", "assistant", "09",
             R"({"role":"assistant","model":"claude-x","content":[{"type":"text","text":"There is a.txt."}]})");
    WriteFile(f.claude() + "/projects/-home-dev-app/" + sid + ".jsonl", log);
    f.Start();
    const std::string session = "claude-code:" + sid;
    RunResult r = f.Cli({"export", session});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::string& md = r.out;
    CHECK(md.rfind("# list the &lt;files&gt; &amp; more\n", 0) == 0);
    CHECK(Has(md, "- Session: `" + session + "`"));
    CHECK(Has(md, "## User · "));
    CHECK(Has(md, "\nlist the <files> & more\n"));
    CHECK(Has(md, "## Assistant (claude-x) · "));
    CHECK(Has(md, "<details>\n<summary>Tool call: Bash · "));
    CHECK(Has(md, "<summary>Tool result: Bash"));
    // The tool's text has ``` in it: its fence is longer.
    CHECK(Has(md, "\n````\n"));
    CHECK(md.find("Looking.") < md.find("Tool call: Bash"));
    CHECK(md.find("Tool result") < md.find("There is a.txt."));

    r = f.Cli({"export", session, "--format", "jsonl"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == log);  // each line once, byte for byte, in order
    CHECK(f.Cli({"export", session, "--format=jsonl"}).out == log);

    // The assistant's text forgotten: its line also gives the tool call, which
    // stays visible, but the line's bytes hold the text, so neither sources
    // nor the export shows them while the forget is in effect (invariant 2).
    r = f.Cli({"forget", "claude-code:a1", "--reason", "private", "--yes", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::string forget = Json(r.out)["tombstone"].GetString();
    r = f.Cli({"sources", "claude-code:a1#1"});
    CHECK(r.status == 0);
    CHECK(Has(r.out, "-home-dev-app/" + sid + ".jsonl:2"));
    CHECK(Has(r.out, "(not shown: the line also holds the text of a forgotten event)"));
    CHECK_FALSE(Has(r.out, "Looking."));
    r = f.Cli({"sources", "claude-code:a1#1", "--json"});
    CHECK_FALSE(Has(r.out, "Looking."));
    CHECK(Has(r.out, "\"withheld\":"));
    r = f.Cli({"export", session, "--format", "jsonl"});
    CHECK(r.status == 0);
    CHECK(
        r.out ==
        line("u1", "user", "00", R"({"role":"user","content":"list the <files> & more"})") +
            line(
                "u2", "user", "06",
                R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}]})") +
            line(
                "a2", "assistant", "09",
                R"({"role":"assistant","model":"claude-x","content":[{"type":"text","text":"There is a.txt."}]})"));
    CHECK(Has(r.err, "1 line left out: each also holds the text of a forgotten event"));
    CHECK_FALSE(Has(f.Cli({"export", session}).out, "Looking."));
    REQUIRE(f.Cli({"restore", forget, "--reason", "fine", "--yes"}).status == 0);
    CHECK(f.Cli({"export", session, "--format", "jsonl"}).out == log);
    CHECK(Has(f.Cli({"sources", "claude-code:a1#1"}).out, "Looking."));

    // Bad usage and unknown sessions.
    CHECK(f.Cli({"export"}).status == 2);
    r = f.Cli({"export", session, "--format", "pdf"});
    CHECK(r.status == 2);
    CHECK(Has(r.err, "markdown or jsonl"));
    CHECK(f.Cli({"export", session, "--format"}).status == 2);
    CHECK(f.Cli({"export", session, "--limit", "2"}).status == 2);
    CHECK(f.Cli({"export", session, "other"}).status == 2);
    r = f.Cli({"export", "claude-code:no-such-session"});
    CHECK(r.status == 4);
    CHECK(Has(r.err, "no session"));
    CheckJsonError(f.Cli({"export", session, "--json"}), 2, "usage");
  }

  TEST_CASE("setup: origin doctor finds what is wrong and says how to fix it") {
    DaemonFixture f;
    f.Start();
    RunResult r = f.Cli({"doctor"}, {{"NO_COLOR", "1"}});
    CHECK_MESSAGE(r.status == 0, r.out);
    CHECK(Has(r.out, "✓ daemon"));
    CHECK(Has(r.out, "✓ integrity    " + f.home() + "/origin.db: quick_check ok"));
    CHECK(Has(r.out, "✓ permissions"));
    CHECK(Has(r.out, "No problem found."));

    // A store others can read, and a registration that does not answer.
    REQUIRE(::chmod((f.home() + "/origin.db").c_str(), 0644) == 0);
    WriteFile(f.codex() + "/config.toml", "[mcp_servers.origin]\ncommand = \"/bin/false\"\n");
    r = f.Cli({"doctor"}, {{"NO_COLOR", "1"}});
    CHECK(r.status == 1);
    CHECK(Has(r.out, f.home() + "/origin.db can be read by others (mode 0644)"));
    CHECK(Has(r.out, "fix: chmod 600 " + f.home() + "/origin.db"));
    CHECK(Has(r.out, "codex: /bin/false does not answer"));
    CHECK(Has(r.out, "fix: origin mcp install codex"));
    r = f.Cli({"doctor", "--json"});
    CHECK(r.status == 1);
    rapidjson::Document d = Json(r.out);
    CHECK_FALSE(d["ok"].GetBool());
    int problems = 0;
    for (const auto& c : d["checks"].GetArray())
      if (std::string(c["status"].GetString()) == "problem") {
        ++problems;
        CHECK(c.HasMember("fix"));
      }
    CHECK(problems == 2);

    // No daemon.
    f.Stop();
    r = f.Cli({"doctor"}, {{"NO_COLOR", "1"}});
    CHECK(r.status == 1);
    CHECK(Has(r.out, "✗ daemon       no daemon answers"));
    CHECK(Has(r.out, "fix: originsd --foreground"));

    CHECK(f.Cli({"doctor", "extra"}).status == 2);
    CHECK(f.Cli({"doctor", "--limit", "1"}).status == 2);
    CheckJsonError(f.Cli({"doctor", "--bogus", "--json"}), 2, "usage");
  }

  TEST_CASE("setup: bash completion made from the command table completes commands, options "
            "and their values; the man page has no roff warnings") {
    const std::string origin = Exe("ORIGIN");
    ScopedTempDir dir;
    RunResult gen = Run({origin, "__generate", "completion", "bash"}, {});
    REQUIRE(gen.status == 0);
    const std::string script = dir / "origin.bash";
    WriteFile(script, gen.out);
    auto complete = [&](const std::string& words, int cword) {
      RunResult r = Run({"/bin/bash", "--norc", "--noprofile", "-c",
                         "source " + script + "; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                             std::to_string(cword) + "; _origin; printf '%s\\n' \"${COMPREPLY[@]}\""},
                        {});
      REQUIRE_MESSAGE(r.status == 0, r.err);
      return r.out;
    };
    if (::access("/bin/bash", X_OK) == 0) {
      CHECK(complete("origin sea", 1) == "search\n");
      CHECK(complete("origin ex", 1) == "export\n");
      CHECK(complete("origin d", 1) == "doctor\n");
      CHECK(complete("origin mcp ''", 2) == "install\nuninstall\nstatus\n");
      CHECK(complete("origin mcp status cu", 3) == "cursor\n");
      CHECK(complete("origin search --sou", 2) == "--source\n");
      CHECK(complete("origin search x --source c", 4) == "claude-code\ncodex\ncursor\n");
      CHECK(complete("origin export x --format ''", 4) == "markdown\njsonl\n");
      CHECK(complete("origin --json st", 2) == "status\nstop\n");
      CHECK(complete("origin --json sta", 2) == "status\n");
      CHECK(complete("origin help fo", 2) == "forget\nforgotten\n");
      CHECK(complete("origin status --x", 2) == "\n");  // nothing
    }
    RunResult man = Run({origin, "__generate", "man"}, {});
    REQUIRE(man.status == 0);
    CHECK(man.out.rfind(".\\\"", 0) == 0);
    if (::access("/usr/bin/groff", X_OK) == 0) {
      WriteFile(dir / "origin.1", man.out);
      RunResult g = Run({"/usr/bin/groff", "-man", "-ww", "-z", dir / "origin.1"}, {});
      CHECK(g.status == 0);
      CHECK_MESSAGE(g.err.empty(), g.err);
    }
    CHECK(Run({origin, "__generate", "completion", "tcsh"}, {}).status == 2);
    CHECK(Run({origin, "__generate"}, {}).status == 2);
  }
}
