// SPDX-License-Identifier: MIT
// origin ui: asks the daemon to serve the web UI on 127.0.0.1 (the `ui`
// operation, daemon/http/ui_service.hpp) and hands out its one-time sign-in
// link.  The UI lives as long as this process stays connected: it waits for
// Enter (a new link; standard input is read only when it is a terminal),
// for a signal, or for the daemon to go.  The browser is given a file that
// redirects to the link, readable only by its owner and removed on exit,
// rather than the link itself: other users can read command lines.

#include <fcntl.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "client/connection.hpp"
#include "client/failure.hpp"
#include "proto/protocol.hpp"

extern char** environ;

namespace origin::client {

namespace {

int signal_pipe[2] = {-1, -1};
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

void OnSignal(int sig) {
  const unsigned char b = static_cast<unsigned char>(sig);
  [[maybe_unused]] ssize_t n = ::write(signal_pipe[1], &b, 1);
}

// The file the browser opens: a page that redirects to the link, in a
// directory of its own (0700), itself 0600; removed by the destructor.
class RedirectFile {
 public:
  RedirectFile() {
    const char* base = std::getenv("XDG_RUNTIME_DIR");
    if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
    if (base == nullptr || *base == '\0') base = "/tmp";
    std::string tmpl = std::string(base) + "/origin-ui-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("create a directory in " + std::string(base) + ": " +
                               std::strerror(errno));
    dir_ = tmpl;  // mkdtemp makes it 0700
    path_ = dir_ + "/signin.html";
  }
  ~RedirectFile() {
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  RedirectFile(const RedirectFile&) = delete;
  RedirectFile& operator=(const RedirectFile&) = delete;
  void Write(const std::string& link) {
    std::string attr;  // the link in an HTML attribute
    for (char ch : link) {
      if (ch == '&') attr += "&amp;";
      else if (ch == '"') attr += "&quot;";
      else if (ch == '<') attr += "&lt;";
      else attr += ch;
    }
    const std::string html =
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">"
        "<meta http-equiv=\"refresh\" content=\"0;url=" + attr + "\"><title>origin ui</title>"
        "<p><a href=\"" + attr + "\">Sign in to origin ui</a></p>\n";
    const std::string tmp = path_ + ".new";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw std::runtime_error("write " + tmp + ": " + std::strerror(errno));
    const bool ok = ::write(fd, html.data(), html.size()) == static_cast<ssize_t>(html.size());
    ::close(fd);
    if (!ok || ::rename(tmp.c_str(), path_.c_str()) != 0)
      throw std::runtime_error("write " + path_ + ": " + std::strerror(errno));
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

// Opens `file` in the default browser, leaving no child behind: a child of
// ours starts the platform's opener (posix_spawnp: no shell) in a session
// of its own and exits at once, so the opener is reparented (and reaped)
// by init rather than becoming a zombie of ours once it exits, and a Ctrl-C
// in this terminal does not reach the browser it starts.  We wait only for
// that short-lived child.  A failure is a note: the link is printed anyway.
void OpenInBrowser(const std::string& file) {
#ifdef __APPLE__
  const char* opener = "open";
#else
  const char* opener = "xdg-open";
#endif
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv = {const_cast<char*>(opener), const_cast<char*>(file.c_str()), nullptr};
  int rc = 0;
  const pid_t child = ::fork();
  if (child == 0) {
    for (int sig : kStopSignals) ::signal(sig, SIG_DFL);  // not our handlers: our pipe
    ::setsid();
    pid_t opener_pid = 0;
    ::_exit(::posix_spawnp(&opener_pid, opener, &fa, nullptr, argv.data(), environ));
  }
  posix_spawn_file_actions_destroy(&fa);
  if (child < 0) {
    rc = errno;
  } else {
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : ECHILD;
  }
  if (rc != 0)
    std::fprintf(stderr, "origin ui: note: could not run %s (%s): open the link yourself\n", opener,
                 std::strerror(rc));
}

void Announce(const rapidjson::Document& r, const RedirectFile& file, bool open) {
  std::printf("Sign in (once, within 5 minutes): %s\n", Str(r, "link").c_str());
  std::printf("  or open %s\n", file.path().c_str());
  if (open) OpenInBrowser(file.path());
  std::fflush(stdout);
}

int RunUi(const std::vector<std::string>& words);

constexpr Option kUiOptions[] = {
    {"port", "N", "the port on 127.0.0.1 (default 7079; 0: any free port)"},
    {"no-open", "", "print the link only; open no browser"},
};

constexpr std::string_view kUiDetails =
    "Serves the web UI of this device's store on http://127.0.0.1:7079/admin/ while\n"
    "it runs, and prints a sign-in link with a one-time secret (it works once,\n"
    "within 5 minutes).  The default browser is given a file that redirects to the\n"
    "link (readable only by you, removed on exit) unless --no-open.  Press Enter\n"
    "for a new link (the previous one stops working); Ctrl-C stops the UI, and\n"
    "the sessions signed in with it end.  A session also ends 30 minutes after its\n"
    "last request, or 12 hours after the sign-in.  The UI answers only on\n"
    "127.0.0.1 (any other address is refused) and only to requests addressed to\n"
    "127.0.0.1:PORT or localhost:PORT.  One origin ui runs at a time.\n";

constexpr std::string_view kUiExamples =
    "  origin ui\n"
    "  origin ui --port 8080 --no-open\n";

int RunUi(const std::vector<std::string>& words) {
  Invocation inv;
  if (std::optional<int> code = ParseOwn(kUiCommand, words, &inv)) return *code;
  std::string host = "127.0.0.1";
  int port = 7079;
  if (std::optional<std::string> p = inv.Value("port")) {
    // N, or HOST:N (any host but 127.0.0.1 is refused by the daemon).
    const std::size_t colon = p->rfind(':');
    if (colon != std::string::npos) host = p->substr(0, colon);
    const std::string n = colon == std::string::npos ? *p : p->substr(colon + 1);
    char* end = nullptr;
    const long v = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || v < 0 || v > 65535)
      return Failure(false, "usage", "--port takes a port number (0 to 65535), not " + *p);
    port = static_cast<int>(v);
  }
  const bool open = !inv.Flag("no-open");
  try {
    const proto::Paths paths = proto::ResolvePaths();
    Connection c = Connection::Open(paths, "origin-ui");
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    w.StartObject();
    w.Key("host");
    w.String(host.c_str());
    w.Key("port");
    w.Int(port);
    w.EndObject();
    rapidjson::Document r = c.Call("ui", std::string(sb.GetString(), sb.GetSize()));
    // Until here a signal ends the process as usual: there is nothing to
    // remove.  From here on the stop signals are blocked until their
    // handlers are in place and the file exists, then unblocked, so that one
    // that came in between (or was pending since the start, blocked by
    // whoever started us) is handled by the loop below, which removes the
    // file on its way out, as every other exit does (RedirectFile).
    sigset_t stop;
    ::sigemptyset(&stop);
    for (int sig : kStopSignals) ::sigaddset(&stop, sig);
    ::sigprocmask(SIG_BLOCK, &stop, nullptr);
    if (::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    struct sigaction sa{};
    sa.sa_handler = OnSignal;
    ::sigemptyset(&sa.sa_mask);
    for (int sig : kStopSignals) ::sigaction(sig, &sa, nullptr);
    RedirectFile file;
    file.Write(Str(r, "link"));
    ::sigprocmask(SIG_UNBLOCK, &stop, nullptr);
    std::printf("origin ui: serving %s at %s\n", TerminalSafe(c.hello().store).c_str(),
                Str(r, "url").c_str());
    Announce(r, file, open);
    const bool terminal = ::isatty(0) != 0;
    if (terminal) std::printf("Enter: a new link · Ctrl-C: stop\n");
    else std::printf("Ctrl-C stops it.\n");
    std::fflush(stdout);
    for (;;) {
      pollfd fds[3] = {{signal_pipe[0], POLLIN, 0}, {c.fd(), POLLIN, 0}, {0, POLLIN, 0}};
      const int n = ::poll(fds, terminal ? 3 : 2, -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      if (fds[0].revents != 0) {
        std::printf("origin ui: stopped\n");
        return 0;
      }
      if (fds[1].revents != 0) {  // the daemon sends nothing unasked: it closed
        std::fprintf(stderr, "origin ui: the daemon stopped, and the UI with it\n");
        return proto::kExitUnavailable;
      }
      if (terminal && fds[2].revents != 0) {
        char buf[256];
        const ssize_t got = ::read(0, buf, sizeof buf);
        if (got <= 0) {  // the terminal went away
          std::printf("origin ui: stopped\n");
          return 0;
        }
        if (std::memchr(buf, '\n', static_cast<std::size_t>(got)) == nullptr &&
            std::memchr(buf, '\r', static_cast<std::size_t>(got)) == nullptr)
          continue;
        r = c.Call("ui", "{\"new_link\":true}");
        file.Write(Str(r, "link"));
        std::printf("A new link; the previous one no longer works.\n");
        Announce(r, file, open);
      }
    }
  } catch (const ClientError& e) {
    return Failure(false, e.code(), e.what());
  } catch (const std::exception& e) {
    return Failure(false, proto::code::kInternal, e.what());
  }
}

}  // namespace

const Command kUiCommand{
    .name = "ui",
    .summary = "the web UI of this device's store on 127.0.0.1, with a sign-in link",
    .options = kUiOptions,
    .details = kUiDetails,
    .examples = kUiExamples,
    .run = RunUi,
};

}  // namespace origin::client
