// SPDX-License-Identifier: MIT
#include "client/render.hpp"
#include "client/commands/common.hpp"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <cstdio>

using namespace origin::client;

TEST_SUITE("client") {
  TEST_CASE("client: sizes and counts read at a glance") {
    CHECK(HumanBytes(0) == "0 B");
    CHECK(HumanBytes(1023) == "1023 B");
    CHECK(HumanBytes(1536) == "1.50 KiB");
    CHECK(HumanBytes(12 * 1048576 + 400000) == "12.4 MiB");
    CHECK(HumanBytes(300LL << 30) == "300 GiB");
    CHECK(Thousands(0) == "0");
    CHECK(Thousands(999) == "999");
    CHECK(Thousands(1000) == "1,000");
    CHECK(Thousands(1234567) == "1,234,567");
    CHECK(Thousands(-12345) == "-12,345");
  }

  TEST_CASE("client: tables align columns by what is visible, colour escapes aside") {
    Style bold{true};
    std::string t = Table({{bold.Bold("NAME"), "N"}, {"部署", "12"}, {"abc", "1"}}, {false, true});
    CHECK(t == "\033[1mNAME\033[0m   N\n部署  12\nabc    1\n");
  }

  TEST_CASE("client: widths are columns on a terminal: CJK two, escapes and combining marks none") {
    CHECK(DisplayWidth("abc") == 3);
    CHECK(DisplayWidth("部署") == 4);
    CHECK(DisplayWidth("\033[1mab\033[0m") == 2);
    CHECK(DisplayWidth("e\xcc\x81") == 1);         // e and a combining acute
    CHECK(DisplayWidth("\xf0\x9f\x9a\x80") == 2);  // 🚀
    CHECK(DisplayWidth("\xff") == 1);              // a byte that is not UTF-8
  }

  TEST_CASE("client: a cut by width never splits an escape or a character, and closes a colour") {
    Style st{true};
    // Nothing to cut.
    CHECK(FitWidth("abc", 3) == "abc");
    CHECK(FitWidth("abc", 0) == "abc");
    CHECK(FitWidth("abcd", 3) == "ab…");
    // A colour set before the cut is reset after it (the timeline's bug:
    // a dimmed cell cut after its colour began ran into the next column).
    const std::string dim = st.Dim("\"a long first prompt\"");
    const std::string cut = FitWidth(dim, 10);
    CHECK(cut == "\033[2m\"a long f…\033[0m");
    CHECK(DisplayWidth(cut) == 10);
    // Cut where a colour ends: nothing left open.
    CHECK(FitWidth(st.Bold("ab") + "cdef", 4) == "\033[1mab\033[0mc…");
    // Never inside an escape: a cut that falls on one keeps it whole.
    CHECK(FitWidth("ab" + st.Red("cd"), 3) == "ab\033[31m…\033[0m");
    CHECK(FitWidth("ab" + st.Red("cde"), 4) == "ab\033[31mc…\033[0m");
    // CJK: two columns each, never half of one.
    CHECK(FitWidth("部署生产", 5) == "部署…");
    CHECK(FitWidth("部署生产", 6) == "部署…");
    CHECK(DisplayWidth(FitWidth("部署生产", 6)) <= 6);
    CHECK(FitWidth("a部署", 3) == "a…");
    // UTF-8 never split.
    CHECK(FitWidth("ééééé", 3) == "éé…");
    CHECK(FitWidth("abc", 1) == "…");
  }

  TEST_CASE("client: a table too wide for the terminal cuts its shrinkable columns, in order") {
    Style st{true};
    const std::vector<std::vector<std::string>> rows = {
        {st.Dim("A"), st.Dim("NAME"), st.Dim("ID")},
        {"1", st.Dim("\"a first prompt that is long\""), "claude-code:0123456789"},
        {"22", "部署生产环境的时候请先检查", "codex:abc"}};
    // Wide enough: as it is.
    const std::string whole = Table(rows, {{true}, {false, 1, 6}, {false, 2, 8}}, 200);
    CHECK(whole == Table(rows, {true, false, false}));
    for (std::size_t width : {60u, 40u, 30u, 20u, 10u}) {
      const std::string t = Table(rows, {{true}, {false, 1, 6}, {false, 2, 8}}, width);
      for (std::size_t at = 0; at < t.size();) {
        const std::size_t nl = t.find('\n', at);
        const std::string line = t.substr(at, nl - at);
        CHECK_MESSAGE(DisplayWidth(line) <= width, width << ": " << line);
        // Every colour set on a line is reset on it.
        const bool closed = line.rfind("\033[2m") == std::string::npos ||
                            line.find("\033[0m", line.rfind("\033[2m")) != std::string::npos;
        CHECK_MESSAGE(closed, width << ": " << line);
        at = nl + 1;
      }
    }
    // NAME (shrink 1) is cut first; ID (shrink 2) only once NAME is at its minimum.
    const std::string t = Table(rows, {{true}, {false, 1, 6}, {false, 2, 8}}, 38);
    CHECK(t.find("claude-code:0123456789") != std::string::npos);
    CHECK(t.find("…") != std::string::npos);
  }

  TEST_CASE("client: plurals") {
    CHECK(Plural(1, "event", "events") == "1 event");
    CHECK(Plural(0, "event", "events") == "0 events");
    CHECK(Plural(1234, "changed file", "changed files") == "1,234 changed files");
  }

  TEST_CASE("client: colour only on a terminal, and never with NO_COLOR") {
    ::setenv("NO_COLOR", "1", 1);
    CHECK_FALSE(UseColor(stdout));
    ::unsetenv("NO_COLOR");
    std::FILE* f = std::tmpfile();
    CHECK_FALSE(UseColor(f));  // not a terminal
    std::fclose(f);
    // --color=always and never win over the terminal and NO_COLOR.
    Output().color = OutputMode::Color::kAlways;
    CHECK(UseColor(stdout));
    ::setenv("NO_COLOR", "1", 1);
    CHECK(UseColor(stdout));
    ::unsetenv("NO_COLOR");
    Output().color = OutputMode::Color::kNever;
    CHECK_FALSE(UseColor(stdout));
    Output().color = OutputMode::Color::kAuto;
  }
}

TEST_SUITE("client") {
  TEST_CASE("client: TerminalSafe shows every control character of stored text escaped") {
    // C0 controls: an OSC that sets the window title, a clear screen, a bell.
    CHECK(TerminalSafe("a\x1b]0;PWNED\x07\x1b[2Jb") == "a\\x1b]0;PWNED\\x07\\x1b[2Jb");
    CHECK(TerminalSafe(std::string("nul\0x", 5)) == "nul\\x00x");
    CHECK(TerminalSafe("del\x7f") == "del\\x7f");
    // One line: newline, CR and tab by name, so a cwd or a title stays on its line.
    CHECK(TerminalSafe("/home/dev/\x1b[31mred\nproj\r\t") == "/home/dev/\\x1b[31mred\\nproj\\r\\t");
    // Several lines: newlines, tabs and CR LF stay; a CR alone does not.
    CHECK(TerminalSafe("a\n\tb\r\nc\rd", true) == "a\n\tb\r\nc\\rd");
    CHECK(TerminalSafe("\x1b[2J\n", true) == "\\x1b[2J\n");
    // C1 controls (U+009B is a CSI) and the bidirectional overrides and isolates.
    CHECK(TerminalSafe("\xc2\x9b"
                       "2J \xc2\x85") == "\\u009b2J \\u0085");
    CHECK(TerminalSafe("\xe2\x80\xaegnp.exe \xe2\x80\xaa\xe2\x81\xa6x\xe2\x81\xa9") ==
          "\\u202egnp.exe \\u202a\\u2066x\\u2069");
    // Bytes that are not UTF-8: stray, overlong, surrogate, cut short.
    CHECK(TerminalSafe("\xff\xfe") == "\\xff\\xfe");
    CHECK(TerminalSafe("\xc0\xaf") == "\\xc0\\xaf");
    CHECK(TerminalSafe("\xed\xa0\x80") == "\\xed\\xa0\\x80");
    CHECK(TerminalSafe("ok\xe4\xb8") == "ok\\xe4\\xb8");
    // Everything else is left as it is, whatever its script.
    const std::string text = "部署 ok — naïve 🚀 \\x1b \xc2\xa0 \xe2\x80\x8f";
    CHECK(TerminalSafe(text) == text);
    CHECK(TerminalSafe("") == "");
  }

  TEST_CASE("client: MakeTerminalSafe escapes every string of an answer; texts keep their lines") {
    rapidjson::Document d;
    d.Parse(R"({"events":[{"text":"a\u001b[2J\nb","cwd":"/x\ny","tags":["\u0007"]}],)"
            R"("sessions":[{"prompt":"p1\np2","title":"t\u009b"}],"n":3,"ok":true})");
    REQUIRE_FALSE(d.HasParseError());
    MakeTerminalSafe(d, d.GetAllocator());
    CHECK(std::string(d["events"][0]["text"].GetString()) == "a\\x1b[2J\nb");
    CHECK(std::string(d["events"][0]["cwd"].GetString()) == "/x\\ny");
    CHECK(std::string(d["events"][0]["tags"][0].GetString()) == "\\x07");
    CHECK(std::string(d["sessions"][0]["prompt"].GetString()) == "p1\np2");
    CHECK(std::string(d["sessions"][0]["title"].GetString()) == "t\\u009b");
    CHECK(d["n"].GetInt() == 3);
  }

  TEST_CASE("client: tables measure escaped content as it shows") {
    std::string t = Table({{TerminalSafe("a\x1b[2Jb"), "1"}, {"xy", "2"}}, {false, true});
    CHECK(t == "a\\x1b[2Jb  1\nxy         2\n");
  }
}

TEST_SUITE("client") {
  TEST_CASE("client: a slash command's echo reads as the person typed it") {
    CHECK(CommandEcho("<command-name>/model</command-name>\n<command-message>model</command-message>\n"
                      "<command-args></command-args>") == "/model");
    CHECK(CommandEcho("<command-message>review</command-message>\n<command-name>/review</command-name>\n"
                      "<command-args>the parser change</command-args>") == "/review the parser change");
    CHECK(CommandEcho("<command-name>compact</command-name>") == "/compact");
    // Anything else is left as it is: text after the elements, another tag,
    // an element not closed, no command name.
    CHECK(CommandEcho("<command-name>/x</command-name> and my words") ==
          "<command-name>/x</command-name> and my words");
    CHECK(CommandEcho("<local-command-stdout>ok</local-command-stdout>") ==
          "<local-command-stdout>ok</local-command-stdout>");
    CHECK(CommandEcho("<command-name>/x") == "<command-name>/x");
    CHECK(CommandEcho("<command-args>a</command-args>") == "<command-args>a</command-args>");
    CHECK(CommandEcho("") == "");
    CHECK(Preview("<command-name>/review</command-name><command-args>the\n  parser</command-args>", 0) ==
          "/review the parser");
  }
}
