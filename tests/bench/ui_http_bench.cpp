// SPDX-License-Identifier: MIT
// The web UI's pages as whole requests (issue 16; docs/performance.md): the
// server time of a page, from the request's first byte to its answer's
// last, through a real originsd serving `origin ui` on 127.0.0.1, against
// the targets: the overview at 2M events within 100 ms, a session page of
// 20 turns within 50 ms, and the search page within the CLI's search time
// plus 5 ms.
//
//   ui_http_bench [--events N] [--runs R] [--dir DIR] [--originsd PATH] [--origin PATH]
//
// The store is the one ui_bench measures (tests/bench/ui_store.hpp), written
// directly with its days ending today, since the daemon's clock is the real
// one; the daemon then builds the search index from its events.  With
// --dir, the store is kept and reused (its days are those of the day it was
// written).  In each of the R runs, interleaved:
//   - the overview after a new event: a line appended to a watched Claude
//     Code log first, and awaited in the store, so that the kept chart is
//     worked out again (as during an import); then kept: the same page again;
//   - the first and the third page of 20 turns of the five largest sessions
//     of the last 30 days;
//   - each query of the mix as the search page, and as `origin search
//     --json --limit 50` (the page's limit) in a whole process: the CLI's
//     time as its user has it, start-up included.
// Then, min(R, 5) times, the overview after a start: the daemon and origin
// ui started again, nothing kept.  Every request is a new TCP connection,
// as HttpRaw makes them.

#include <fcntl.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/store/schema.hpp"
#include "daemon/ui/layout.hpp"
#include "tests/bench/bench_util.hpp"
#include "tests/bench/ui_store.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/loggen.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::bench;
using namespace origin::test;
namespace fs = std::filesystem;

extern char** environ;

namespace {

// `origin ui --no-open --port 0` with its output on a pipe; SIGINT stops it.
class UiServer {
 public:
  UiServer(const std::string& origin, const std::vector<std::string>& env) {
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::vector<std::string> args = {origin, "ui", "--no-open", "--port", "0"};
    std::vector<std::string> envs = env;
    for (char** e = environ; *e != nullptr; ++e) envs.emplace_back(*e);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0)
      throw std::runtime_error("cannot run " + origin);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    out_ = out[0];
    std::string text;
    char buf[4096];
    for (;;) {  // the link: http://127.0.0.1:PORT/admin/signin?secret=TOKEN
      const std::size_t at = text.find("Sign in");  // not the "serving ... at" address
      if (at != std::string::npos)
        link_ =
            FindRun(text, "http://127.0.0.1:", std::string("0123456789/:?=.") + kTokenChars, at);
      if (!link_.empty() && text.find('\n', text.find(link_)) != std::string::npos) break;
      const ssize_t n = ::read(out_, buf, sizeof buf);
      if (n <= 0) throw std::runtime_error("origin ui printed no link: " + text);
      text.append(buf, static_cast<std::size_t>(n));
    }
    port_ = std::stoi(link_.substr(17));
  }
  ~UiServer() {
    ::kill(pid_, SIGINT);
    ::waitpid(pid_, nullptr, 0);
    ::close(out_);
  }
  UiServer(const UiServer&) = delete;
  UiServer& operator=(const UiServer&) = delete;
  int port() const { return port_; }
  /// The path of the one-time link.
  std::string target() const { return link_.substr(link_.find('/', 7)); }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string link_;
  int port_ = 0;
};

std::int64_t MaxSeq(const Daemon& d) {
  rapidjson::Document s;
  s.Parse(Capture(d.cli() + "status --json").c_str());
  return s.HasParseError() ? -1 : s["store"]["max_seq"].GetInt64();
}

struct Timed {
  std::vector<double> ms;
  std::size_t bytes = 0;
};

// GET `target` with the session's cookie; the time to the answer's last byte.
double Get(const UiServer& ui, const std::string& cookie, const std::string& target,
           std::size_t* bytes = nullptr) {
  const double t = Now();
  const HttpReply r = Http(ui.port(), "GET", target, {{"Cookie", cookie}}, "", 120000);
  const double ms = (Now() - t) * 1000;
  if (r.status != 200)
    throw std::runtime_error("GET " + target + ": " + std::to_string(r.status) + "\n" +
                             r.body.substr(0, 400));
  if (bytes != nullptr) *bytes = r.body.size();
  return ms;
}

// Signs in with `ui`'s link; the cookie ("origin-ui=...").
std::string SignIn(const UiServer& ui) {
  const HttpReply r = Http(ui.port(), "GET", ui.target());
  const std::string set = r.headers.count("set-cookie") ? r.headers.at("set-cookie") : "";
  if (r.status != 303 || set.empty())
    throw std::runtime_error("sign-in failed: " + std::to_string(r.status));
  return set.substr(0, set.find(';'));
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t events = 2000000;
  int runs = 7;
  std::string dir, originsd = "daemon/originsd", origin = "client/origin";
  Options options("ui_http_bench");
  options.Add("--events", &events, "N");
  options.Add("--runs", &runs, "R");
  options.Add("--dir", &dir, "DIR");
  options.Add("--originsd", &originsd, "PATH");
  options.Add("--origin", &origin, "PATH");
  if (!options.Parse(argc, argv)) return 2;
  originsd = fs::absolute(originsd);
  origin = fs::absolute(origin);
  const bool keep = !dir.empty();
  if (!keep) dir = fs::temp_directory_path() / ("ui_http_bench." + std::to_string(::getpid()));
  dir = fs::absolute(dir);
  const std::string home = dir + "/home", claude = dir + "/claude", codex = dir + "/codex";
  fs::create_directories(home);
  fs::create_directories(codex);
  if (!fs::exists(home + "/origin.db")) {
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr)) * 1000;
    auto w = OpenWriteConnection(home + "/origin.db");
    FillUiStore(*w, events, now - now % kDayMs);
  }
  // A Claude Code log the daemon watches: each cold overview appends to it.
  const std::string growing =
      claude + "/projects/-home-dev-growing/1b3c5e7a-0000-4000-8000-00000000b0b0.jsonl";
  if (!fs::exists(growing)) {
    WriteFile(growing, "");
    AppendClaudeLines(growing, 0, 1, 7);
  }
  // Each line appended is a prompt (loggen's line i is one when i % 6 == 0,
  // an event), numbered 6 times the lines the file has, so never twice.
  const std::string lines = CompleteLines(growing);
  int appended = static_cast<int>(std::count(lines.begin(), lines.end(), '\n'));

  double t = Now();
  std::optional<Daemon> d;
  d.emplace(originsd, origin, home, claude, codex, dir + "/originsd.log");
  d->SyncAndIndex();
  std::printf("daemon up, search index complete: %.1f s\n", Now() - t);
  std::printf("daemon idle after %.1f s more\n", d->WaitIdle());

  try {
    std::optional<UiServer> ui;
    ui.emplace(origin, d->env());
    std::string cookie = SignIn(*ui);

    // The five largest sessions of the last 30 days, as the timeline lists them.
    std::vector<std::string> sessions;
    {
      auto db = OpenReadConnection(home + "/origin.db");
      auto st = db->Prepare(
          "SELECT id, event_count FROM session WHERE last_ts >= ? ORDER BY event_count DESC LIMIT "
          "5");
      st.Bind(1, static_cast<std::int64_t>(std::time(nullptr)) * 1000 - 30 * kDayMs);
      while (st.Step()) sessions.emplace_back(st.Text(0));
      auto n = db->Prepare("SELECT sum(event_count) FROM session");
      n.Step();
      std::printf("store: %lld events\n", static_cast<long long>(n.Int(0)));
    }
    struct Query {
      const char* label;
      std::string q;
      bool tools = false;  // the page's "tools" box; the CLI's --all
    };
    const std::vector<Query> queries = {
        {"one common word", "catalog"},
        {"two words (AND)", "migrate timeout"},
        {"one common word, tool events too", "catalog", true},
        {"no match", "zebra"},
    };

    Timed cold, kept, first, middle;
    std::vector<Timed> page(queries.size()), cli(queries.size());
    for (int r = 0; r < runs; ++r) {
      // The overview: a new event first (so that the chart is read again).
      const std::int64_t before = MaxSeq(*d);
      AppendClaudeLines(growing, 6 * appended, 1, static_cast<std::uint32_t>(appended));
      ++appended;
      for (const double until = Now() + 60; MaxSeq(*d) <= before; ::usleep(5000))
        if (Now() > until)
          throw std::runtime_error("the line appended to " + growing + " made no event");
      cold.ms.push_back(Get(*ui, cookie, "/admin/", &cold.bytes));
      kept.ms.push_back(Get(*ui, cookie, "/admin/", &kept.bytes));
      for (const std::string& s : sessions) {
        first.ms.push_back(
            Get(*ui, cookie, origin::ui::Link("/session", {{"id", s}}), &first.bytes));
        middle.ms.push_back(Get(
            *ui, cookie, origin::ui::Link("/session", {{"id", s}, {"page", "3"}}), &middle.bytes));
      }
      for (std::size_t i = 0; i < queries.size(); ++i) {
        const Query& q = queries[i];
        page[i].ms.push_back(Get(
            *ui, cookie, origin::ui::Link("/search", {{"q", q.q}, {"tools", q.tools ? "on" : ""}}),
            &page[i].bytes));
        std::vector<std::string> args = {origin, "search", "--json", "--limit", "50", q.q};
        if (q.tools) args.emplace_back("--all");
        std::string out;
        cli[i].ms.push_back(TimeProcess(args, d->env(), &out));
        cli[i].bytes = out.size();
      }
    }
    // The overview after a start, nothing kept: origin ui and the daemon
    // started again, the daemon idle (its start-up checks done).
    Timed started;
    for (int r = 0; r < std::min(runs, 5); ++r) {
      ui.reset();
      d.reset();
      d.emplace(originsd, origin, home, claude, codex, dir + "/originsd.log");
      d->SyncAndIndex();
      d->WaitIdle();
      ui.emplace(origin, d->env());
      cookie = SignIn(*ui);
      started.ms.push_back(Get(*ui, cookie, "/admin/", &started.bytes));
    }
    auto row = [](const char* what, const Timed& x) {
      std::printf("%-44s median %7.1f ms  p90 %7.1f ms  (%zu bytes)\n", what, Median(x.ms),
                  Percentile(x.ms, 90), x.bytes);
    };
    row("overview, the first after a start", started);
    row("overview, after a new event", cold);
    row("overview, kept chart", kept);
    row("session, first page of 20 turns", first);
    row("session, third page of 20 turns", middle);
    for (std::size_t i = 0; i < queries.size(); ++i) {
      std::printf("search %s (%s):\n", queries[i].label, queries[i].q.c_str());
      row("  the page", page[i]);
      row("  origin search --json --limit 50", cli[i]);
      std::vector<double> diff;  // each run's page and CLI ran one after the other
      for (std::size_t k = 0; k < page[i].ms.size(); ++k)
        diff.push_back(page[i].ms[k] - cli[i].ms[k]);
      std::printf(
          "  page - CLI: %+.1f ms the medians, %+.1f ms the median of each run's (target: at most "
          "+5)\n",
          Median(page[i].ms) - Median(cli[i].ms), Median(diff));
    }
  } catch (const std::exception& e) {  // the daemon and origin ui stop on the way out
    std::fprintf(stderr, "ui_http_bench: %s\n", e.what());
    return 1;
  }
  if (!keep) fs::remove_all(dir);
  return 0;
}
