// SPDX-License-Identifier: MIT
// End to end, over hostile content: what an agent's log holds must never
// drive the terminal of the person who reads it with origin (escape
// sequences, C1 controls, bidirectional overrides in messages, cwds, titles,
// tool names, file names, entries and reasons), while --json carries it
// exactly; and a log line holding bytes that are not UTF-8 comes back in
// valid UTF-8 JSON, with its exact bytes in base64.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/text.hpp"
#include "proto/base64.hpp"
#include "tests/e2e/daemon_fixture.hpp"

using namespace origin;
using namespace origin::test;

namespace {

// Hostile pieces, as a log holds them (JSON escapes) and as they are once
// decoded.  None of them is a sequence origin itself writes.
constexpr const char* kTitleJson = "\\u001b]0;PWNED\\u0007";  // sets the window title
constexpr const char* kTitle = "\x1b]0;PWNED\x07";
const std::string kMessageJson = std::string("look: ") + kTitleJson +
                                 "\\u001b[2J \\u009b2J \\u007f \\u202egnp.exe \\u2066x\\u2069 end";
const std::string kMessage = std::string("look: ") + kTitle +
                             "\x1b[2J \xc2\x9b"
                             "2J \x7f \xe2\x80\xaegnp.exe \xe2\x81\xa6x\xe2\x81\xa9 end";
constexpr const char* kCwdJson = "/home/dev/\\u001b[35mred\\nproj";
constexpr const char* kCwd = "/home/dev/\x1b[35mred\nproj";

std::string Line(const std::string& type, const std::string& uuid, const std::string& content) {
  return R"({"type":")" + type + R"(","uuid":")" + uuid +
         R"(","sessionId":"evil","timestamp":"2026-01-05T10:00:00.000Z","cwd":")" + kCwdJson +
         R"(","gitBranch":"main\u001b[5m","version":"2.1.12","message":{"role":")" + type +
         R"(","model":"claude\u001b[?1049h","content":)" + content + "}}\n";
}

// The escapes origin writes itself (colours, a match, and sync's progress bar).
constexpr std::string_view kOurs[] = {"\x1b[0m",  "\x1b[1m",  "\x1b[2m",    "\x1b[31m",
                                      "\x1b[32m", "\x1b[33m", "\x1b[1;33m", "\x1b[K"};

// `out` without the escapes origin writes itself.
std::string WithoutOurs(std::string out) {
  for (std::string_view ours : kOurs)
    for (std::size_t p = out.find(ours); p != std::string::npos; p = out.find(ours, p))
      out.erase(p, ours.size());
  return out;
}

// What is wrong with `out` as a terminal shows it: a control character
// that came from the content, or an empty string when there is none.
std::string Interpreted(std::string out) {
  out = WithoutOurs(out);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto b = static_cast<unsigned char>(out[i]);
    const std::string_view rest = std::string_view(out).substr(i);
    if ((b < 0x20 && b != '\n' && b != '\r') || b == 0x7f)
      return "control byte " + std::to_string(b) + " at " + std::to_string(i);
    if (b == 0xc2 && i + 1 < out.size() && static_cast<unsigned char>(out[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(out[i + 1]) <= 0x9f)
      return "C1 control at " + std::to_string(i);
    for (std::string_view bidi :
         {"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae",
          "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9"})
      if (rest.substr(0, bidi.size()) == bidi) return "bidi control at " + std::to_string(i);
  }
  return "";
}

std::string Str(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "hostile: on a terminal, no control character of stored content reaches it; --json "
      "carries the content exactly") {
    DaemonFixture f;
    // A project directory whose name holds an escape too (origin sources shows the path).
    const std::string file = f.claude() + "/projects/-home-dev-\x1b]0;PWNED\x07/evil.jsonl";
    WriteFile(
        file,
        Line("user", "u1", "\"" + kMessageJson + "\"") +
            Line(
                "assistant", "a1",
                R"([{"type":"text","text":"ok\u001b[?1049h"},{"type":"tool_use","id":"t1","name":"Bash\u001b[8m","input":{"command":"echo \u001b]0;PWNED\u0007"}}])") +
            Line("user", "u2", R"("forget me \u001b]0;PWNED\u0007")") +
            R"({"type":"custom-title","customTitle":"title \u001b]0;PWNED\u0007\r\nspoof","sessionId":"evil"})"
            "\n");
    f.Start({"--rescan-ms", "600000"});

    // --json: exactly what the log holds.
    auto d = Json(f.Cli({"show", "claude-code:u1", "--json"}).out);
    CHECK(Str(d["event"]["text"]) == kMessage);
    CHECK(Str(d["event"]["cwd"]) == kCwd);
    CHECK(Str(d["event"]["git_branch"]) == "main\x1b[5m");
    d = Json(f.Cli({"timeline", "--days", "100000", "--json"}).out);
    REQUIRE(d["sessions"].Size() == 1);
    CHECK(Str(d["sessions"][0]["cwd"]) == kCwd);
    CHECK(Str(d["sessions"][0]["title"]) == "title \x1b]0;PWNED\x07\r\nspoof");
    d = Json(f.Cli({"projects", "--json"}).out);
    REQUIRE(d["projects"].Size() == 1);
    CHECK(Str(d["projects"][0]["project"]) == "\x1b[35mred\nproj");
    d = Json(f.Cli({"search", "--json", "look"}).out);
    REQUIRE(d["events"].Size() == 1);
    CHECK(Str(d["events"][0]["text"]) == kMessage);
    d = Json(f.Cli({"sources", "claude-code:u1", "--json"}).out);
    CHECK(Str(d["sources"][0]["file"]) == file);

    // Writes of people can hold them too.
    auto remembered = f.CliInTerminal({"remember", std::string("entry ") + kTitle + "\nline two",
                                       "--kind", "memory", "--confidence", "0.5", "--cite",
                                       "claude-code:u1", "--project", "p\x1b[35m"});
    REQUIRE(remembered.status == 0);
    CHECK(Interpreted(remembered.out) == "");
    d = Json(f.Cli({"entries", "--json"}).out);
    REQUIRE(d["entries"].Size() == 1);
    const std::string entry = Str(d["entries"][0]["id"]);
    CHECK(Str(d["entries"][0]["text"]) == std::string("entry ") + kTitle + "\nline two");
    const std::string reason = std::string("because ") + kTitle;
    REQUIRE(f.Cli({"forget", "claude-code:u2", "--reason", reason, "--yes"}).status == 0);
    d = Json(f.Cli({"forgotten", "--json"}).out);
    CHECK(Str(d["tombstones"][0]["reason"]) == reason);

    // Every command that prints for people, on a terminal.
    const std::vector<std::vector<std::string>> commands = {
        {"status"},
        {"sync"},
        {"search", "look"},
        {"search", "--all", "PWNED"},
        {"search", "entry"},
        {"timeline", "--days", "100000"},
        {"timeline", "claude-code:evil"},
        {"timeline", "claude-code:evil", "--all"},
        {"projects"},
        {"show", "claude-code:u1"},
        {"show", "claude-code:a1#1"},
        {"show", entry},
        {"sources", "claude-code:u1"},
        {"sources", entry},
        {"entries"},
        {"entries", "--history"},
        {"forgotten"},
        {"forget", entry, "--reason", reason},           // the preview
        {"show", std::string("claude-code:") + kTitle},  // an error quoting the id
    };
    for (const auto& args : commands) {
      std::string cmd;
      for (const auto& a : args) cmd += (cmd.empty() ? "" : " ") + a;
      CAPTURE(cmd);
      RunResult r = f.CliInTerminal(args);
      CAPTURE(r.out);
      CHECK(r.status == (args[0] == "show" && args[1].find('\x1b') != std::string::npos ? 4 : 0));
      CHECK(Interpreted(r.out) == "");
      // Shown, escaped: every PWNED the terminal gets is text after a visible
      // \x1b]0; (or the JSON escape \u001b]0; of a raw line or a tool's
      // input; with a snippet's bracket between them, in a search, or the
      // colour of a match).
      const std::string plain = WithoutOurs(r.out);
      for (std::size_t p = plain.find("PWNED"); p != std::string::npos;
           p = plain.find("PWNED", p + 1)) {
        std::string before = plain.substr(p < 10 ? 0 : p - 10, p < 10 ? p : 10);
        for (char& c : before) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        CHECK_MESSAGE((before.find("\\x1b]0;") != std::string::npos ||
                       before.find("\\u001b]0;") != std::string::npos),
                      before);
      }
    }
    // What the escaped forms look like.
    auto shown = f.CliInTerminal({"show", "claude-code:u1"}).out;
    CHECK(shown.find("look: \\x1b]0;PWNED\\x07\\x1b[2J \\u009b2J \\x7f \\u202egnp.exe "
                     "\\u2066x\\u2069 end") != std::string::npos);
    CHECK(shown.find("/home/dev/\\x1b[35mred\\nproj") != std::string::npos);
    auto sessions = f.CliInTerminal({"timeline", "--days", "100000"}).out;
    CHECK(sessions.find("title \\x1b]0;PWNED\\x07\\r\\nspoof") != std::string::npos);
    f.Stop();
  }

  TEST_CASE(
      "hostile: a log line with bytes that are not UTF-8 comes back as valid UTF-8 JSON, its "
      "exact bytes in raw_base64") {
    DaemonFixture f;
    // A file name that is not UTF-8 either.
    const std::string file = f.claude() + "/projects/-home-dev-\xff/s1.jsonl";
    const std::string bad = ClaudeLine("u1", "bad \xff\xfe bytes");
    const std::string good = ClaudeLine("u2", "good bytes");
    WriteFile(file, bad + good);
    f.Start({"--rescan-ms", "600000"});
    RunResult r = f.Cli({"sources", "claude-code:u1", "--json"});
    REQUIRE(r.status == 0);
    CHECK(ValidUtf8(r.out));
    rapidjson::Document d;
    d.Parse<rapidjson::kParseValidateEncodingFlag>(r.out.c_str());
    REQUIRE_FALSE(d.HasParseError());
    const auto& src = d["sources"][0];
    CHECK(Str(src["raw"]) == SanitizeUtf8(bad.substr(0, bad.size() - 1)));
    CHECK(Str(src["raw"]).find("bad \xef\xbf\xbd\xef\xbf\xbd bytes") != std::string::npos);
    REQUIRE(src.HasMember("raw_base64"));
    CHECK(proto::Base64Decode(Str(src["raw_base64"])) == bad.substr(0, bad.size() - 1));
    CHECK(Str(src["file"]) == SanitizeUtf8(file));
    // A line that is UTF-8 has no raw_base64.
    d = Json(f.Cli({"sources", "claude-code:u2", "--json"}).out);
    CHECK(Str(d["sources"][0]["raw"]) + "\n" == good);
    CHECK_FALSE(d["sources"][0].HasMember("raw_base64"));
    // Everything else that answers in JSON is valid UTF-8 too.
    for (const std::vector<std::string>& args : {std::vector<std::string>{"status", "--json"},
                                                 {"show", "claude-code:u1", "--json"},
                                                 {"search", "bad", "--json"},
                                                 {"timeline", "claude-code:s1", "--json"}}) {
      CAPTURE(args[0]);
      r = f.Cli(args);
      CHECK(r.status == 0);
      CHECK(ValidUtf8(r.out));
    }
    // For people: the bytes shown as \xNN, from the exact bytes.
    r = f.Cli({"sources", "claude-code:u1"});
    CHECK(r.out.find("bad \\xff\\xfe bytes") != std::string::npos);
    CHECK(r.out.find("-home-dev-\xef\xbf\xbd/s1.jsonl") != std::string::npos);
    f.Stop();
  }
}
