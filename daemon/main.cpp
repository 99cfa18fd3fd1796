// SPDX-License-Identifier: MIT
// originsd: the one process per $ORIGIN_HOME that opens the store.  Linear
// start-up: check the home, take the instance lock, open and migrate the
// store, bind the socket, say ready, run the loop; SIGTERM or SIGINT end it
// after the current transaction, with exit status 0.

#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "adapters/registry.hpp"
#include "core/c/faults.hpp"
#include "core/c/sqlite.hpp"
#include "core/entries/entries.hpp"
#include "core/hub/relay.hpp"
#include "core/ingest/ingester.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "daemon/daemon.hpp"
#include "daemon/instance.hpp"
#include "daemon/log.hpp"
#include "origin_config.h"

namespace {

constexpr const char* kUsage =
    "usage: originsd [--foreground | --background] [--home DIR] [--log-file PATH]\n"
    "\n"
    "The Origin daemon: archives the AI coding agents' session logs of this user\n"
    "into one store ($ORIGIN_HOME, default ~/.origin) and answers the origin CLI.\n"
    "\n"
    "  --foreground       run in the foreground (the default; for service managers)\n"
    "  --background       detach, and return once the daemon is ready\n"
    "  --home DIR         the store (overrides $ORIGIN_HOME)\n"
    "  --log-file PATH    log there instead of stderr (--background: run/originsd.log)\n"
    "  --rescan-ms N      how often to look at every log file's size (default 60000)\n"
    "  --debounce-ms N    how long after the watcher saw a change its source is\n"
    "                     synced (default 30)\n"
    "  --first-sync-wait-ms N  how long a query waits for the first sync after a start\n"
    "                     before it answers from what is stored (default 3000)\n"
    "  --retry-ms N       the first retry of a sync the store refused (a full disk);\n"
    "                     doubling from there, at most --rescan-ms apart (default 1000)\n"
    "  --http-timeout-ms N  origin ui and the hub: how long a request may take to\n"
    "                     arrive, and an idle connection stay open (default 10000)\n"
    "  --hub              serve as a hub (origin serve): MCP over HTTP, /healthz\n"
    "  --listen ADDR      the hub's address (default 127.0.0.1; 0.0.0.0 or :: for all)\n"
    "  --port N           the hub's port (default 7077; 0: a free one, logged)\n"
    "  --public-url URL   the URL the hub is reached by, behind a TLS proxy\n"
    "                     (default $ORIGIN_PUBLIC_URL)\n"
    "  --relay            make an empty store a relay before it ingests anything\n"
    "                     (origin hub connect --relay); a store that holds\n"
    "                     something stays as it is\n"
    "  --version          print the version\n";

struct Args {
  bool background = false;
  std::string home;
  std::string log_file;
  int rescan_ms = 60000;
  int debounce_ms = 30;
  int first_sync_wait_ms = 3000;
  int retry_ms = 1000;
  int http_timeout_ms = 10000;
  bool hub = false;
  bool relay = false;
  origin::http::HubOptions hub_options;
  std::string public_url;  // as given, parsed into hub_options
};

bool ParseArgs(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "originsd: %s needs a value\n", s.c_str());
        return false;
      }
      out = argv[++i];
      return true;
    };
    if (s == "--foreground") {
      a.background = false;
    } else if (s == "--background") {
      a.background = true;
    } else if (s == "--home" || s == "--state-dir") {
      if (!value(a.home)) return false;
    } else if (s == "--log-file") {
      if (!value(a.log_file)) return false;
    } else if (s == "--rescan-ms" || s == "--first-sync-wait-ms" || s == "--retry-ms" ||
               s == "--http-timeout-ms" || s == "--debounce-ms") {
      std::string v;
      if (!value(v)) return false;
      int& out = s == "--rescan-ms"         ? a.rescan_ms
                 : s == "--retry-ms"        ? a.retry_ms
                 : s == "--http-timeout-ms" ? a.http_timeout_ms
                 : s == "--debounce-ms"     ? a.debounce_ms
                                            : a.first_sync_wait_ms;
      const int least = s == "--first-sync-wait-ms" || s == "--debounce-ms" ? 0 : 10;
      out = std::atoi(v.c_str());
      if (out < least) {
        std::fprintf(stderr, "originsd: %s must be at least %d\n", s.c_str(), least);
        return false;
      }
    } else if (s == "--hub") {
      a.hub = true;
    } else if (s == "--relay") {
      a.relay = true;
    } else if (s == "--listen") {
      if (!value(a.hub_options.listen)) return false;
    } else if (s == "--public-url") {
      if (!value(a.public_url)) return false;
    } else if (s == "--port") {
      std::string v;
      if (!value(v)) return false;
      char* end = nullptr;
      const long port = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || port < 0 || port > 65535) {
        std::fprintf(stderr, "originsd: --port takes a port number, 0 to 65535 (not %s)\n",
                     v.c_str());
        return false;
      }
      a.hub_options.port = static_cast<int>(port);
    } else if (s == "--version") {
      std::printf("originsd %s\n", ORIGIN_VERSION);
      std::exit(0);
    } else if (s == "--help" || s == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "originsd: unknown argument %s\n%s", s.c_str(), kUsage);
      return false;
    }
  }
  return true;
}

// In --background mode the parent waits on this pipe for one line: "ok" or
// the error that stopped the child, so that the caller sees it.
int g_ready_fd = -1;

void ReportReady(const std::string& msg) {
  if (g_ready_fd < 0) return;
  ssize_t n = ::write(g_ready_fd, msg.data(), msg.size());
  (void)n;
  ::close(g_ready_fd);
  g_ready_fd = -1;
}

// Whether the log is a file (else it is stderr, where Fail's message is already).
bool g_log_to_file = false;

[[noreturn]] void Fail(const std::string& msg) {
  LOG_ERROR("%s", msg.c_str());
  if (g_ready_fd >= 0) {
    ReportReady(msg);
  } else if (g_log_to_file) {
    std::fprintf(stderr, "originsd: %s\n", msg.c_str());
  }
  std::exit(1);
}

int Background(const origin::proto::Paths& paths, Args& args) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) Fail(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) Fail(std::string("fork: ") + std::strerror(errno));
  if (pid > 0) {
    ::close(fds[1]);
    std::string msg;
    char buf[1024];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<std::size_t>(n));
    if (msg == "ok") return 0;
    std::fprintf(stderr, "originsd: %s\n",
                 msg.empty() ? "the daemon exited during start-up" : msg.c_str());
    return 1;
  }
  ::close(fds[0]);
  g_ready_fd = fds[1];
  ::setsid();
  if (::fork() > 0) ::_exit(0);  // not a session leader: never gets a terminal
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::close(null);
  }
  if (args.log_file.empty()) args.log_file = paths.run + "/originsd.log";
  return -1;  // go on as the daemon
}

}  // namespace

int main(int argc, char** argv) try {
  ::umask(077);
  // The buffers of an import and of a hub's chunks (1 to 4 MiB, freed and
  // made again many times a second) come from the heap and stay there: by
  // glibc's defaults each was mapped and unmapped, or trimmed, and faulted
  // in page by page again, which took a fifth of an import's CPU and more
  // of a hub's (docs/performance.md, The hub).  A thread's arena keeps at
  // most the trim threshold free.
  ::mallopt(M_MMAP_THRESHOLD, 8 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 16 << 20);
  ::signal(SIGPIPE, SIG_IGN);
  origin::StopSqliteMemoryCount();  // before any connection
  Args args;
  if (!ParseArgs(argc, argv, args)) return 2;
  if (args.hub && args.public_url.empty())
    if (const char* u = std::getenv("ORIGIN_PUBLIC_URL"); u != nullptr) args.public_url = u;
  if (!args.public_url.empty()) {
    std::string error;
    args.hub_options.public_url = origin::http::ParsePublicUrl(args.public_url, &error);
    if (!args.hub_options.public_url) {
      std::fprintf(stderr, "originsd: %s\n", error.c_str());
      return 2;
    }
  }
  origin::proto::Paths paths;
  try {
    paths = origin::proto::ResolvePaths(args.home);
    origin::PrepareHome(paths);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "originsd: %s\n", e.what());
    return 1;
  }
  if (args.background) {
    int rc = Background(paths, args);
    if (rc >= 0) return rc;
  }
  if (!args.log_file.empty() && !origin::log::SetFile(args.log_file))
    Fail("cannot open the log file " + args.log_file + ": " + std::strerror(errno));
  g_log_to_file = !args.log_file.empty();

  std::string holder;
  std::optional<origin::InstanceLock> lock;
  try {
    lock = origin::InstanceLock::TryAcquire(paths.home, paths.lock, &holder);
  } catch (const std::exception& e) {
    Fail(e.what());
  }
  if (!lock)
    Fail("originsd is already running for " + paths.home + " (" + holder + ")" +
         (args.hub ? ": a hub serves its store from that one daemon; stop it first (origin stop), "
                     "then origin serve"
                   : ""));
  lock->WritePidAndVersion(ORIGIN_VERSION);
  // Tests only: the store's writes fail on purpose (core/c/faults.hpp).
  try {
    if (std::string fault = origin::ArmFaultsFromEnv(); !fault.empty())
      LOG_WARN("ORIGIN_FAULT=%s: the store's writes fail on purpose (a test)", fault.c_str());
  } catch (const std::exception& e) {
    Fail(e.what());
  }

  std::unique_ptr<origin::Db> db;
  std::unique_ptr<origin::EventIndex> index;
  std::string store_name;
  bool relay = false;
  try {
    // Upgrading a store of an earlier format can take a while: say so.
    int before = 0;
    if (::access(paths.db.c_str(), F_OK) == 0) {
      origin::Db probe(paths.db, origin::Db::Mode::kReadOnly);
      before = static_cast<int>(probe.QueryInt("PRAGMA user_version"));
    }
    if (before > 0 && before < origin::kSchemaVersion)
      LOG_INFO("upgrading the store from format %d to %d", before, origin::kSchemaVersion);
    db = origin::OpenWriteConnection(paths.db);
    if (before > 0 && before < origin::kSchemaVersion) LOG_INFO("store upgraded");
    // A hub's writer stores every device's pushes, a request of up to
    // 1,000 entries at a time, each on random pages of the indexes of ids
    // and refs: with SQLite's default cache of 2 MB, every request read
    // them again from the system and spilled them before its commit.  The
    // page cache of a bulk import, for as long as it serves
    // (docs/performance.md).
    if (args.hub) db->Exec("PRAGMA cache_size = -" + std::to_string(origin::kBulkCacheKib));
    // A hub's store is named hub, unless it has a name already.
    relay = origin::IsRelay(*db);
    // Made a relay before the first sync can ingest anything; a store that
    // holds something stays a device (origin hub connect --relay says why).
    if (args.relay && !relay && !args.hub && origin::WhatItHolds(*db).empty()) {
      origin::MakeRelay(*db, paths.home);
      relay = true;
    }
    store_name = args.hub ? origin::FixStoreName(*db, "hub") : origin::StoreNameOf(*db);
  } catch (const std::exception& e) {
    Fail("open the store " + paths.db + ": " + e.what());
  }
  if (relay && args.hub)
    Fail("the store in " + paths.home +
         " is a relay of a hub, which keeps no memory of its own: a hub needs a store of its "
         "own (ORIGIN_HOME=DIR origin serve)");
  try {
    index = std::make_unique<origin::EventIndex>(paths.index, paths.db);
  } catch (const std::exception& e) {
    Fail("open the search index " + paths.index + ": " + e.what());
  }

  uv_loop_t loop;
  uv_loop_init(&loop);
  int exit_code = 0;
  {
    origin::DaemonOptions opts;
    opts.paths = paths;
    opts.store_name = store_name;
    opts.rescan_ms = args.rescan_ms;
    opts.debounce_ms = args.debounce_ms;
    opts.http_timeout_ms = args.http_timeout_ms;
    opts.first_sync_wait_ms = args.first_sync_wait_ms;
    opts.retry_ms = args.retry_ms;
    if (args.hub) opts.hub = args.hub_options;
    opts.relay = relay;
    origin::Daemon daemon(&loop, opts, std::move(db), std::move(index),
                          origin::adapters::MakeAdapters(origin::proto::UserHome()));
    auto on_stop = [](uv_signal_t* h, int signum) {
      auto* d = static_cast<origin::Daemon*>(h->data);
      LOG_INFO("received %s", strsignal(signum));
      origin::NotifyServiceManager("STOPPING=1");
      try {  // no exception through libuv
        if (d != nullptr) d->BeginShutdown();
      } catch (const std::exception& e) {
        LOG_ERROR("shutting down: %s", e.what());
      }
    };
    origin::UvHandle<uv_signal_t> sigterm, sigint, sighup;
    sigterm = origin::UvHandle<uv_signal_t>::Make(
        [&](uv_signal_t* s) { return uv_signal_init(&loop, s); });
    sigint = origin::UvHandle<uv_signal_t>::Make(
        [&](uv_signal_t* s) { return uv_signal_init(&loop, s); });
    sighup = origin::UvHandle<uv_signal_t>::Make(
        [&](uv_signal_t* s) { return uv_signal_init(&loop, s); });
    sigterm.get()->data = &daemon;
    sigint.get()->data = &daemon;
    uv_signal_start(sigterm.get(), on_stop, SIGTERM);
    uv_signal_start(sigint.get(), on_stop, SIGINT);
    uv_signal_start(
        sighup.get(), [](uv_signal_t*, int) { origin::log::Reopen(); }, SIGHUP);
    // Signal handles must not keep the loop alive once everything else closed.
    uv_unref(reinterpret_cast<uv_handle_t*>(sigterm.get()));
    uv_unref(reinterpret_cast<uv_handle_t*>(sigint.get()));
    uv_unref(reinterpret_cast<uv_handle_t*>(sighup.get()));
    // Started once the signals are watched: a client may send SIGTERM as
    // soon as the socket answers, which used to kill the daemon by the
    // signal's default action when it came before uv_signal_start (seen
    // once, under load, in e2e "SIGTERM exits 0").  One that comes during
    // Start waits in libuv's signal pipe for the loop.
    try {
      daemon.Start();
    } catch (const std::exception& e) {
      Fail(std::string("start: ") + e.what());
    }

    LOG_INFO("originsd %s ready on %s (pid %d), store %s", ORIGIN_VERSION, paths.socket.c_str(),
             static_cast<int>(::getpid()), paths.home.c_str());
    ReportReady("ok");
    // Under systemd (Type=notify): ready once the socket answers.
    origin::NotifyServiceManager("READY=1\nMAINPID=" + std::to_string(::getpid()));
    uv_run(&loop, UV_RUN_DEFAULT);
    sigterm.Close();
    sigint.Close();
    sighup.Close();
  }
  // Close whatever is left, then let the close callbacks run.
  uv_walk(
      &loop,
      [](uv_handle_t* h, void*) {
        if (!uv_is_closing(h)) uv_close(h, nullptr);
      },
      nullptr);
  uv_run(&loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&loop) != 0) {
    LOG_WARN("the loop still had handles at exit");
  }
  LOG_INFO("stopped");
  return exit_code;
} catch (const std::exception& e) {
  Fail(e.what());
}
