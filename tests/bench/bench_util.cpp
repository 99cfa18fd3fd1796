// SPDX-License-Identifier: MIT
#include "tests/bench/bench_util.hpp"

#include <fcntl.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <set>

#include "core/c/sqlite.hpp"
#include "core/store/schema.hpp"
#include "tests/support/support.hpp"

extern char** environ;

namespace origin::bench {

double Now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string Capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

double TimeProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   std::string* out) {
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int fds[2] = {-1, -1};
  if (out != nullptr && ::pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (out != nullptr) {
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
  } else {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  double t = Now();
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (out != nullptr) {
    ::close(fds[1]);
    if (rc == 0) {
      char buf[65536];
      ssize_t n;
      while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out->append(buf, static_cast<size_t>(n));
    }
    ::close(fds[0]);
  }
  if (rc != 0) return -1;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return (Now() - t) * 1000;
}

namespace {
std::int64_t ProcKb(pid_t pid, const char* field) {
  std::string s = test::ReadAll("/proc/" + std::to_string(pid) + "/status");
  auto pos = s.find(field);
  return pos == std::string::npos ? -1 : std::atoll(s.c_str() + pos + std::strlen(field));
}
}  // namespace

std::int64_t PeakRssKb(pid_t pid) { return ProcKb(pid, "VmHWM:"); }

double CpuSeconds(pid_t pid) {
  const std::string s = test::ReadAll("/proc/" + std::to_string(pid) + "/stat");
  // After the command name in parentheses: fields 14 and 15 are utime, stime.
  const std::size_t p = s.rfind(')');
  long long utime = 0, stime = 0;
  if (p == std::string::npos ||
      std::sscanf(s.c_str() + p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld",
                  &utime, &stime) != 2)
    return -1;
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}
std::int64_t RssKb(pid_t pid) { return ProcKb(pid, "VmRSS:"); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

namespace {

// The daemons running, stopped when a benchmark gives up (std::exit runs
// the destructors of no local object: those of main's daemons).
std::set<pid_t>& Running() {
  static std::set<pid_t> pids;
  return pids;
}

void StopRunning() {
  for (pid_t pid : Running()) {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
}

}  // namespace

Daemon::Daemon(const std::string& originsd, const std::string& origin, const std::string& home,
               const std::string& claude, const std::string& codex, const std::string& log,
               const std::vector<std::string>& env, const std::vector<std::string>& args) {
  env_ = {"ORIGIN_HOME=" + home, "CLAUDE_CONFIG_DIR=" + claude, "CODEX_HOME=" + codex,
          "ORIGIN_NO_AUTOSTART=1"};
  env_.insert(env_.end(), env.begin(), env.end());
  for (const auto& e : env_) cli_ += e + " ";
  cli_ += origin + " ";
  pid_ = ::fork();
  if (pid_ == 0) {
    for (const auto& e : env_) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<const char*> argv = {originsd.c_str(), "--foreground", "--log-file",
                                     log.c_str(), "--rescan-ms", "3600000"};
    for (const std::string& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    ::execv(originsd.c_str(), const_cast<char* const*>(argv.data()));
    ::_exit(127);
  }
  log_ = log;
  Running();  // made before StopRunning is registered, so destroyed after it runs
  static const bool registered = std::atexit(StopRunning) == 0;
  (void)registered;
  Running().insert(pid_);
  std::string sock = home + "/run/originsd.sock";
  while (!std::filesystem::exists(sock)) {
    ExitIfGone("before its socket was up");
    ::usleep(2000);
  }
}

Daemon::~Daemon() {
  if (pid_ > 0) {
    Running().erase(pid_);
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
}

void Daemon::ExitIfGone(const char* when) {
  if (pid_ <= 0 || ::waitpid(pid_, nullptr, WNOHANG) != pid_) return;
  Running().erase(pid_);
  pid_ = -1;
  std::fprintf(stderr, "originsd exited %s: see %s\n", when, log_.c_str());
  std::exit(1);
}

std::string Daemon::SyncAndIndex() {
  // origin sync waits behind the start-up sync, so it returns once all is in.
  Capture(cli_ + "sync --json");
  // Then the search index (event_fts, on its own thread) must be complete too.
  return WaitIndexed();
}

std::string Daemon::WaitIndexed() {
  for (;;) {
    std::string status = Capture(cli_ + "status --json");
    rapidjson::Document s;
    s.Parse(status.c_str());
    if (!s.HasParseError() &&
        s["store"]["search_indexed_upto"].GetInt64() == s["store"]["max_seq"].GetInt64())
      return status;
    ExitIfGone("before its search index caught up");
    ::usleep(20000);
  }
}

double Daemon::WaitIdle() {
  double t = Now();
  double last = CpuSeconds(pid_);
  for (;;) {
    ::sleep(1);
    double now = CpuSeconds(pid_);
    if (now < 0 || now - last <= 0.01) return Now() - t;  // at most 10 ms of CPU in a second
    last = now;
  }
}

std::int64_t StoreBytes(const std::string& home, std::map<std::string, std::int64_t>* tables) {
  auto table = [](const std::string& name) {
    for (const char* fts : {"message_fts", "event_fts", "event_cjk", "entry_fts"})
      if (name.rfind(fts, 0) == 0) return std::string(fts);
    return name;
  };
  std::int64_t bytes = 0;
  for (const char* file : {"/origin.db", "/index.db"}) {
    Db db(home + file, Db::Mode::kReadOnly);
    bytes += db.QueryInt("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size");
    if (tables == nullptr) continue;
    Stmt st(db.get(), "SELECT name, sum(pgsize) FROM dbstat GROUP BY name");
    while (st.Step()) (*tables)[table(std::string(st.Text(0)))] += st.Int(1);
  }
  return bytes;
}

namespace {

// Log bytes per event of the small-events corpus (measured: search_bench's
// output), and of the real-shaped corpus (corpus_stats: 3,400 an event).
constexpr double kLogBytesPerEvent = 2000;
constexpr double kRealLogBytesPerEvent = 3400;

// The corpus under `dir`: generated with `seed` and what `size` sets when
// claude/ is not there yet, else the files there.
std::vector<test::CorpusFile> Corpus(const std::string& dir, const std::string& kind,
                                     std::uint64_t seed,
                                     const std::function<void(test::CorpusOptions&)>& size) {
  const std::string claude = dir + "/claude", codex = dir + "/codex";
  std::vector<test::CorpusFile> files;
  if (!std::filesystem::exists(claude)) {
    test::CorpusOptions opts;
    opts.seed = seed;
    if (!test::ParseCorpusKind(kind, &opts)) {
      std::fprintf(stderr, "unknown corpus %s\n", kind.c_str());
      std::exit(2);
    }
    size(opts);
    return test::GenerateCorpus(claude, codex, opts);
  }
  for (auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".jsonl")
      files.push_back({e.path().string(), static_cast<std::int64_t>(e.file_size())});
  return files;
}

}  // namespace

std::vector<test::CorpusFile> CorpusIn(const std::string& dir, std::int64_t mb,
                                       const std::string& kind) {
  return Corpus(dir, kind, 7, [mb](test::CorpusOptions& opts) { opts.total_bytes = mb << 20; });
}

std::vector<test::CorpusFile> EventCorpusIn(const std::string& dir, std::int64_t events,
                                            const std::string& kind) {
  return Corpus(dir, kind, 11, [events](test::CorpusOptions& opts) {
    opts.total_bytes =
        static_cast<std::int64_t>(static_cast<double>(events) *
                                  (opts.real_shaped ? kRealLogBytesPerEvent : kLogBytesPerEvent));
    // Sessions start an hour apart and end now: the last 7 days hold the
    // newest.
    const std::int64_t sessions = opts.total_bytes / opts.mean_session_bytes + 1;
    opts.start_ms = static_cast<std::int64_t>(::time(nullptr)) * 1000 - sessions * 3600 * 1000;
  });
}

rapidjson::Document ParseObject(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  if (d.HasParseError() || !d.IsObject()) {
    std::fprintf(stderr, "bench: not a JSON object: %s\n", json.c_str());
    std::exit(1);
  }
  return d;
}

int WaitHubPort(const std::string& log, Daemon& hub) {
  int port = 0;
  while ((port = test::HubPortInLog(log)) == 0) {
    hub.ExitIfGone("before it listened");
    ::usleep(10000);
  }
  return port;
}

Options& Options::Add(const std::string& name, std::string* value, const std::string& meta) {
  return Value(name, meta, [value](const std::string& v) {
    *value = v;
    return true;
  });
}

Options& Options::Value(const std::string& name, const std::string& meta,
                        std::function<bool(const std::string&)> set) {
  options_.push_back({name, meta, std::move(set), nullptr});
  return *this;
}

Options& Options::Flag(const std::string& name, bool* value) {
  options_.push_back({name, "", nullptr, value});
  return *this;
}

std::string Options::Usage() const {
  std::string u = "usage: " + program_;
  for (const Option& o : options_) u += " [" + o.name + (o.flag ? "" : " " + o.meta) + "]";
  return u;
}

bool Options::Parse(int argc, char** argv) const {
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "%s: %s\n%s\n", program_.c_str(), why.c_str(), Usage().c_str());
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s\n", Usage().c_str());
      std::exit(0);
    }
    auto o = std::find_if(options_.begin(), options_.end(),
                          [&](const Option& x) { return x.name == a; });
    if (o == options_.end()) return fail("unknown option " + a);
    if (o->flag) {
      *o->flag = true;
      continue;
    }
    if (i + 1 >= argc) return fail(a + " needs a value");
    const std::string v = argv[++i];
    if (!o->set(v)) return fail(a + " takes " + o->meta + ", not " + v);
  }
  return true;
}

}  // namespace origin::bench
