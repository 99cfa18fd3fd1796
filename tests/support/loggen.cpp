// SPDX-License-Identifier: MIT
#include "tests/support/loggen.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <random>
#include <stdexcept>

#include "core/c/fd.hpp"
#include "core/util/text.hpp"
#include "tests/support/loggen_real.hpp"

namespace origin::test {

namespace {

const char* const kWords[] = {
    "the",     "parser",   "test",     "build",   "fails",   "because", "catalog", "service",
    "deploy",  "config",   "function", "returns", "null",    "when",    "input",   "is",
    "empty",   "refactor", "module",   "cache",   "index",   "query",   "latency", "thread",
    "socket",  "daemon",   "memory",   "store",   "mirror",  "frame",   "commit",  "branch",
    "review",  "error",    "handler",  "retry",   "timeout", "schema",  "migrate", "version",
    "release", "docs",     "we",       "should",  "use",     "a",       "map",     "instead",
    "of",      "vector",   "here",     "and",     "then",    "check",   "results", "again"};
const char* const kChinese[] = {"部署到生产环境", "这个函数返回空值",     "请检查日志",
                                "数据库迁移失败", "我们需要重构这个模块", "缓存命中率很低",
                                "测试通过了",     "构建失败的原因是"};
const char* const kTools[] = {"Bash", "Read", "Edit", "Grep", "Write", "Glob"};

struct Gen {
  std::mt19937 rng;
  bool small = false;
  explicit Gen(std::uint32_t seed, bool small_events = false) : rng(seed), small(small_events) {}
  std::uint32_t U(std::uint32_t n) { return rng() % n; }
  // Sizes: (small events, the default).
  std::uint32_t Pick(std::uint32_t small_base, std::uint32_t small_span, std::uint32_t base,
                     std::uint32_t span) {
    return small ? small_base + U(small_span) : base + U(span);
  }
  std::string Sentence(int words) {
    std::string s;
    for (int i = 0; i < words; ++i) {
      if (i) s += ' ';
      if (small && U(20000) == 0)
        s += "quokka";
      else if (small && U(400) == 0)
        s += "AI";
      else if (U(12) == 0)
        s += kChinese[U(8)];
      else
        s += kWords[U(sizeof kWords / sizeof *kWords)];
    }
    return s;
  }
  std::string Code(std::size_t bytes) {
    std::string s;
    int n = 1;
    while (s.size() < bytes) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%6d\\u2192", n++);
      s += buf;
      s += "  " + Sentence(3 + static_cast<int>(U(8)));
      if (small)  // an identifier, e.g. retry_handler
        s += std::string(" ") + kWords[U(sizeof kWords / sizeof *kWords)] + "_" +
             kWords[U(sizeof kWords / sizeof *kWords)];
      s += ";\\n";
    }
    return s;
  }
  std::string Base64(std::size_t bytes) { return RandomBase64(rng, bytes); }
  std::string Uuid() {
    char buf[40];
    auto r = [&] { return static_cast<unsigned>(rng()); };
    std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-8%03x-%08x%04x", r(), r() & 0xffff, r() & 0xfff,
                  r() & 0xfff, r(), r() & 0xffff);
    return buf;
  }
};

std::string Ts(std::int64_t ms) { return FormatIsoUtc(ms); }

void Emit(UniqueFd& fd, const std::string& path, std::string& buf, std::int64_t& written) {
  if (buf.size() < (1 << 20)) return;
  PwriteFull(fd.get(), buf, written, path);
  written += static_cast<std::int64_t>(buf.size());
  buf.clear();
}

std::string ClaudeLine(Gen& g, const std::string& session, const std::string& cwd, int i,
                       std::int64_t ts, std::string& last_tool) {
  std::string env = "\"sessionId\":\"" + session + "\",\"timestamp\":\"" + Ts(ts) +
                    "\",\"cwd\":\"" + cwd +
                    "\",\"gitBranch\":\"main\",\"version\":\"2.1.12\",\"userType\":\"external\","
                    "\"isSidechain\":false";
  std::string uuid = session.substr(0, 8) + "-" + std::to_string(i);
  switch (i % 6) {
    case 0:
      return "{\"type\":\"user\",\"uuid\":\"" + uuid + "\"," + env +
             ",\"message\":{\"role\":\"user\",\"content\":\"" +
             g.Sentence(static_cast<int>(g.Pick(30, 120, 8, 40))) + "\"}}";
    case 1:
      return "{\"type\":\"assistant\",\"uuid\":\"" + uuid + "\"," + env +
             ",\"requestId\":\"req\",\"message\":{\"id\":\"msg\",\"type\":\"message\",\"role\":"
             "\"assistant\","
             "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"" +
             g.Sentence(30) + "\",\"signature\":\"" + g.Base64(200) +
             "\"}],\"usage\":{\"input_tokens\":12,\"output_tokens\":40}}}";
    case 2:
      last_tool = "toolu_" + uuid;
      return "{\"type\":\"assistant\",\"uuid\":\"" + uuid + "\"," + env +
             ",\"requestId\":\"req\",\"message\":{\"id\":\"msg\",\"type\":\"message\",\"role\":"
             "\"assistant\","
             "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"tool_use\",\"id\":\"" +
             last_tool + "\",\"name\":\"" + kTools[g.U(6)] + "\",\"input\":{\"command\":\"" +
             g.Sentence(6) + "\"}}],\"usage\":{\"input_tokens\":12}}}";
    case 3: {
      // A tool result: a file's content or a command's output, which Claude
      // Code also keeps in toolUseResult; now and then a screenshot.  About
      // a quarter of the bytes end up base64.
      std::string content, structured;
      if (!g.small && g.U(100) < 10) {
        // A Read of a screenshot: the image in the result and again in toolUseResult.
        std::string b64 = g.Base64(30000 + g.U(60000));
        content =
            "[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/"
            "png\",\"data\":\"" +
            b64 + "\"}}]";
        structured =
            "{\"type\":\"image\",\"file\":{\"base64\":\"" + b64 + "\",\"type\":\"image/png\"}}";
      } else {
        std::string code = g.Code(g.Pick(1000, 2400, 2000, 23000));
        content = "\"" + code + "\"";
        structured = "{\"stdout\":\"" + code + "\",\"stderr\":\"\",\"interrupted\":false}";
      }
      return "{\"type\":\"user\",\"uuid\":\"" + uuid + "\"," + env +
             ",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_"
             "id\":\"" +
             last_tool + "\",\"content\":" + content + "}]},\"toolUseResult\":" + structured + "}";
    }
    case 4:
      return "{\"type\":\"assistant\",\"uuid\":\"" + uuid + "\"," + env +
             ",\"requestId\":\"req\",\"message\":{\"id\":\"msg\",\"type\":\"message\",\"role\":"
             "\"assistant\","
             "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"" +
             g.Sentence(static_cast<int>(g.Pick(80, 250, 20, 150))) +
             "\"}],\"usage\":{\"input_tokens\":12}}}";
    default:
      return "{\"type\":\"progress\",\"uuid\":\"" + uuid + "\"," + env +
             ",\"data\":{\"type\":\"hook_progress\"},\"toolUseID\":\"x\",\"parentToolUseID\":"
             "\"x\"}";
  }
}

std::string CodexLine(Gen& g, const std::string& thread, const std::string& cwd, int i,
                      std::int64_t ts) {
  std::string head = "{\"timestamp\":\"" + Ts(ts) + "\",";
  if (i == 0)
    return head + "\"type\":\"session_meta\",\"payload\":{\"id\":\"" + thread + "\",\"cwd\":\"" +
           cwd +
           "\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.121.0\",\"source\":\"cli\"}}";
  switch (i % 7) {
    case 1:
      return head + "\"type\":\"turn_context\",\"payload\":{\"turn_id\":\"t\",\"cwd\":\"" + cwd +
             "\",\"model\":\"gpt-5-codex\"}}";
    case 2:
      return head +
             "\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\","
             "\"content\":[{\"type\":\"input_text\",\"text\":\"" +
             g.Sentence(10 + static_cast<int>(g.U(40))) + "\"}]}}";
    case 3:
      return head +
             "\"type\":\"response_item\",\"payload\":{\"type\":\"reasoning\",\"summary\":[{"
             "\"type\":\"summary_text\",\"text\":\"" +
             g.Sentence(20) + "\"}],\"encrypted_content\":\"" + g.Base64(600) + "\"}}";
    case 4:
      return head +
             "\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":"
             "\"shell\",\"arguments\":\"{\\\"command\\\":\\\"" +
             g.Sentence(5) + "\\\"}\",\"call_id\":\"call_" + std::to_string(i) + "\"}}";
    case 5:
      return head +
             "\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_"
             "id\":\"call_" +
             std::to_string(i - 1) + "\",\"output\":\"" + g.Code(g.Pick(800, 2000, 1000, 20000)) +
             "\"}}";
    default:
      return head +
             "\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\","
             "\"content\":[{\"type\":\"output_text\",\"text\":\"" +
             g.Sentence(20 + static_cast<int>(g.U(100))) + "\"}]}}";
  }
}

}  // namespace

std::string RandomBase64(std::mt19937& rng, std::size_t n) {
  static const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s(n, 'A');
  for (auto& c : s) c = kB64[rng() & 63];
  return s;
}

bool ParseCorpusKind(std::string_view name, CorpusOptions* opts) {
  if (name == "synthetic") return true;
  if (name == "small") return opts->small_events = true;
  if (name == "real-shaped") {
    opts->real_shaped = true;
    opts->mean_session_bytes = 512 << 10;  // real sessions: 0.2 (Claude Code) to 0.6 MB (Codex)
    return true;
  }
  return false;
}

std::vector<CorpusFile> GenerateCorpus(const std::string& claude_root,
                                       const std::string& codex_root, const CorpusOptions& opts) {
  Gen g(opts.seed, opts.small_events && !opts.real_shaped);
  std::mt19937 real_rng(opts.seed * 2654435761u + 1);  // the real-shaped sessions' text
  std::vector<CorpusFile> out;
  std::int64_t done = 0;
  std::int64_t t0 = opts.start_ms;
  int n = 0;
  while (done < opts.total_bytes) {
    bool codex = g.U(1000) < static_cast<std::uint32_t>(opts.codex_share * 1000);
    std::int64_t target = opts.mean_session_bytes / 4 +
                          g.U(static_cast<std::uint32_t>(opts.mean_session_bytes * 3 / 2));
    target = std::min(target, opts.total_bytes - done + 1000);
    std::string project = std::string(kWords[g.U(20)]) + "-" + std::to_string(g.U(5));
    std::string cwd = "/home/dev/" + project;
    std::string id = g.Uuid();
    std::string path;
    if (codex) {
      path = codex_root + "/sessions/2026/01/" + std::to_string(10 + n % 20) +
             "/rollout-2026-01-10T10-00-00-" + id + ".jsonl";
    } else {
      path = claude_root + "/projects/-home-dev-" + project + "/" + id + ".jsonl";
    }
    MakeDirs(path.substr(0, path.rfind('/')), 0755);
    UniqueFd fd = OpenFile(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::string buf;
    std::int64_t written = 0;
    std::int64_t ts = t0 + static_cast<std::int64_t>(n) * 3600 * 1000;
    std::string last_tool = "toolu_0";
    if (opts.real_shaped) {
      real::Session session(real_rng, codex, id, cwd);
      while (written + static_cast<std::int64_t>(buf.size()) < target) {
        session.Turn(buf, ts);
        Emit(fd, path, buf, written);
      }
    }
    for (int i = 0; !opts.real_shaped && written + static_cast<std::int64_t>(buf.size()) < target;
         ++i) {
      ts += 500 + g.U(20000);
      buf +=
          (codex ? CodexLine(g, id, cwd, i, ts) : ClaudeLine(g, id, cwd, i, ts, last_tool)) + "\n";
      Emit(fd, path, buf, written);
    }
    PwriteFull(fd.get(), buf, written, path);
    written += static_cast<std::int64_t>(buf.size());
    fd.Reset();
    // The newest sessions are still being written: modified just now.
    if (done + written >= opts.total_bytes * 95 / 100)
      ts = static_cast<std::int64_t>(::time(nullptr)) * 1000;
    timespec times[2];
    times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(ts / 1000);
    times[0].tv_nsec = times[1].tv_nsec = 0;
    ::utimensat(AT_FDCWD, path.c_str(), times, 0);
    out.push_back({path, written});
    done += written;
    ++n;
  }
  return out;
}

void AppendClaudeLines(const std::string& path, int first, int n, std::uint32_t seed) {
  Gen g(seed);
  std::string session = path.substr(path.rfind('/') + 1, 36);
  std::string buf, last_tool = "toolu_0";
  std::int64_t ts = 1790000000000 + static_cast<std::int64_t>(first) * 1000;
  for (int i = first; i < first + n; ++i)
    buf += ClaudeLine(g, session, "/home/dev/growing", i, ts + i * 1000, last_tool) + "\n";
  UniqueFd fd = OpenFile(path, O_WRONLY | O_APPEND);
  PwriteFull(fd.get(), buf, FileSize(fd.get(), path), path);
}

}  // namespace origin::test
