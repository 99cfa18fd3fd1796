// SPDX-License-Identifier: MIT
#include "tests/support/loggen_real.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "core/util/text.hpp"
#include "tests/support/loggen.hpp"

namespace origin::test::real {

namespace {

// Calibration knobs (docs/performance.md, issue 15, says what each matched).
constexpr int kVocabulary = 150000; // made-up words under the common ones
constexpr double kZipf = 0.95;      // exponent of the words' rank law
constexpr double kCjkMessages = 0.01;  // share of messages with a Chinese sentence
constexpr int kTopicPercent = 70;      // words drawn again from the text's own few
constexpr int kOddPerMille = 60;       // tokens of random letters and digits (ids, URLs)

const char* const kCommon[] = {
    "the",      "to",       "and",     "a",        "of",        "is",       "in",       "that",
    "it",       "for",      "this",    "you",      "we",        "be",       "on",       "with",
    "i",        "not",      "as",      "are",      "can",       "if",       "or",       "file",
    "use",      "now",      "let",     "me",       "check",     "from",     "have",     "so",
    "test",     "should",   "will",    "all",      "but",       "an",       "by",       "at",
    "do",       "what",     "there",   "need",     "which",     "when",     "function", "error",
    "make",     "then",     "code",    "add",      "new",       "see",      "build",    "run",
    "data",     "also",     "update",  "change",   "value",     "one",      "first",    "just",
    "here",     "has",      "no",      "was",      "my",        "up",       "out",      "these",
    "only",     "would",    "into",    "more",     "like",      "how",      "get",      "fix",
    "set",      "return",   "type",    "name",     "path",      "config",   "issue",    "line",
    "parser",   "fails",    "because", "catalog",  "service",   "deploy",   "returns",  "null",
    "input",    "empty",    "refactor", "module",  "cache",     "index",    "query",    "latency",
    "thread",   "socket",   "daemon",  "memory",   "store",     "mirror",   "frame",    "commit",
    "branch",   "review",   "handler", "retry",    "timeout",   "schema",   "migrate",  "version",
    "release",  "docs",     "map",     "instead",  "vector",    "results",  "again",    "server",
    "client",   "request",  "response", "state",   "user",      "list",     "object",   "string",
    "looks",    "good",     "works",   "because",  "done",      "still",    "same",     "other",
    "each",     "some",     "after",   "before",   "where",     "using",    "want",     "right",
    "output",   "message",  "event",   "session",  "api",       "key",      "table",    "field",
    "option",   "default",  "current", "missing",  "found",     "call",     "called",   "works"};
const char* const kChinese[] = {"部署到生产环境", "这个函数返回空值",     "请检查日志",
                                "数据库迁移失败", "我们需要重构这个模块", "缓存命中率很低",
                                "测试通过了",     "构建失败的原因是",     "先看一下配置文件"};
const char* const kKeywords[] = {"def",    "return", "import", "const",  "let",    "if",
                                 "else",   "for",    "while",  "class",  "struct", "fn",
                                 "pub",    "async",  "await",  "static", "void",   "int",
                                 "auto",   "self",   "this",   "new",    "try",    "catch",
                                 "export", "from",   "match",  "switch", "case",   "break"};
const char* const kExt[] = {"ts", "py", "rs", "go", "cpp", "hpp", "js", "tsx", "md", "json", "toml",
                            "yaml", "sh", "css", "html", "sql"};
const char* const kOnset[] = {"",   "b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",
                              "m",  "n",  "p",  "r",  "s",  "t",  "v",  "w",  "z",  "ch",
                              "sh", "th", "st", "tr", "pr", "cl", "gr", "br", "pl", "sp",
                              "qu", "x",  "y",  "fl", "dr", "sc", "sn", "wh", "kr", "bl"};
const char* const kVowel[] = {"a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "ou", "io",
                              "y", "ee", "oo", "ie", "au"};
const char* const kCoda[] = {"",  "",  "",   "n",  "r",  "s",  "t",  "l",  "m",  "ng",
                             "ck", "st", "nd", "x",  "rt", "mp", "nt", "ll", "ss", "rk"};

// The vocabulary: the common words first, then made-up ones, with Zipf
// weights.  Built once, from a fixed seed, whatever the corpus's seed.
struct Vocabulary {
  std::vector<std::string> words;
  std::vector<double> cdf;
  Vocabulary() {
    for (const char* w : kCommon) words.push_back(w);
    std::mt19937 rng(20260101);
    auto pick = [&](auto& arr) {
      return std::string(arr[rng() % (sizeof arr / sizeof *arr)]);
    };
    while (static_cast<int>(words.size()) < kVocabulary) {
      int syl = 1 + static_cast<int>(rng() % 3) + (rng() % 4 == 0);
      std::string w;
      for (int s = 0; s < syl; ++s) w += pick(kOnset) + pick(kVowel) + (s + 1 == syl || rng() % 3 == 0 ? pick(kCoda) : "");
      if (w.size() >= 2) words.push_back(w);
    }
    double sum = 0;
    for (std::size_t r = 0; r < words.size(); ++r) {
      sum += 1.0 / std::pow(static_cast<double>(r + 1), kZipf);
      cdf.push_back(sum);
    }
    for (auto& c : cdf) c /= sum;
  }
};

const Vocabulary& Vocab() {
  static const Vocabulary v;
  return v;
}

// JSON string content for `s` (quotes not included).
std::string Esc(std::string_view s) {
  std::string o;
  o.reserve(s.size() + s.size() / 16);
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o;
}

class Text {
 public:
  explicit Text(std::mt19937& rng) : rng_(rng) {}
  std::uint32_t U(std::uint32_t n) { return rng_() % n; }
  double Real() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  // A length from a log-normal law with this median and spread, clamped.
  std::size_t Len(double median, double sigma, std::size_t lo, std::size_t hi) {
    double x = median * std::exp(sigma * std::normal_distribution<double>(0, 1)(rng_));
    return std::clamp(static_cast<std::size_t>(x), lo, hi);
  }
  // A new text begins: it picks the few words it will keep coming back to
  // (real texts repeat their own terms, which keeps the trigrams of each
  // event fewer than its characters suggest).
  void NewText() {
    topic_.clear();
    for (int n = 3 + static_cast<int>(U(8)); n > 0; --n) topic_.push_back(VocabWord());
  }
  std::string Word() {
    if (U(20000) == 0) return "quokka";
    if (U(400) == 0) return "AI";
    if (!topic_.empty() && static_cast<int>(U(100)) < kTopicPercent) return topic_[U(topic_.size())];
    return VocabWord();
  }
  std::string Alnum(int n) {
    static const char kAl[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::string s(static_cast<std::size_t>(n), 'a');
    for (auto& c : s) c = kAl[rng_() % 62];
    return s;
  }
  std::string VocabWord() {
    const auto& v = Vocab();
    auto it = std::lower_bound(v.cdf.begin(), v.cdf.end(), Real());
    return v.words[std::min<std::size_t>(it - v.cdf.begin(), v.words.size() - 1)];
  }
  std::string Ident() {
    // The search benchmark's identifier, about one in 3,000 (as `quokka`
    // is among words), so that its query measures a match.
    if (U(3000) == 0) return "retry_handler";
    std::string a = Word(), b = Word();
    switch (U(4)) {
      case 0: return a + "_" + b;
      case 1: {
        b[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(b[0])));
        return a + b;
      }
      case 2: return a + "_" + b + "_" + Word();
      default: return U(8) ? a : a + std::to_string(U(100));
    }
  }
  std::string Hex(int n) {
    static const char kHex[] = "0123456789abcdef";
    std::string s(static_cast<std::size_t>(n), '0');
    for (auto& c : s) c = kHex[rng_() & 15];
    return s;
  }
  std::string Number() {
    switch (U(4)) {
      case 0: return std::to_string(U(10));
      case 1: return std::to_string(U(1000));
      case 2: return std::to_string(U(100000));
      default: return std::to_string(U(100)) + "." + std::to_string(U(100));
    }
  }
  std::string Path() {
    std::string p = U(3) == 0 ? cwd_ + "/" : "";
    int depth = 1 + static_cast<int>(U(3));
    p += U(2) ? "src/" : "";
    for (int i = 0; i < depth; ++i) p += Word() + "/";
    return p + Ident() + "." + kExt[U(sizeof kExt / sizeof *kExt)];
  }
  // A token of prose: mostly words, now and then an identifier, a path,
  // a number or a hash.
  std::string Token() {
    std::uint32_t r = U(1000);
    if (r < 880 - kOddPerMille) return Word();
    if (r < 930) return "`" + Ident() + "`";
    if (r < 960) return Number();
    if (r < 980) return Path();
    if (r < 990) return Hex(7 + static_cast<int>(U(2)) * 33);
    if (r < 880) return Word() + "_" + Alnum(4 + U(8));
    if (r < 990 + kOddPerMille / 2)
      return "https://" + Word() + "." + Word() + ".dev/" + Word() + "/" + Alnum(6 + U(10));
    if (r < 990 + kOddPerMille) return Word() + "_" + Alnum(4 + U(8));
    return Word() + "-" + Word();
  }
  std::string Prose(std::size_t chars) {
    std::string s;
    bool start = true;
    while (s.size() < chars) {
      std::string w = Token();
      if (start && !w.empty() && w[0] >= 'a' && w[0] <= 'z') w[0] = static_cast<char>(w[0] - 32);
      s += w;
      start = false;
      std::uint32_t r = U(100);
      if (r < 8) {
        s += ". ";
        start = true;
        if (U(8) == 0) s += "\n\n";
        if (U(12) == 0) s += "- ";
      } else if (r < 13) {
        s += ", ";
      } else if (r < 14) {
        s += ": ";
      } else {
        s += ' ';
      }
    }
    return s + ".";
  }
  std::string CodeLine() {
    std::string s(2 * U(5), ' ');
    switch (U(9)) {
      case 0: return s + kKeywords[U(30)] + " " + Ident() + "(" + Ident() + ", " + Ident() + ") {";
      case 1: return s + "const " + Ident() + " = " + Ident() + "." + Ident() + "(" + Number() + ");";
      case 2: return s + "return " + Ident() + ";";
      case 3: return s + "// " + Prose(20 + U(50));
      case 4: return s + "if (" + Ident() + " == " + Number() + ") {";
      case 5: return s + Ident() + "." + Ident() + " = \"" + Word() + " " + Word() + "\";";
      case 6: return s + "}";
      case 7: return s + "import { " + Ident() + " } from './" + Word() + "';";
      default: return s + Ident() + "(" + Ident() + ", " + Number() + ");";
    }
  }
  // A file's content as Claude Code's Read shows it: numbered lines.
  std::string Code(std::size_t chars, bool numbered) {
    std::string s;
    int first = U(4) == 0 ? 1 + static_cast<int>(U(400)) : 1;
    for (int n = first; s.size() < chars; ++n) {
      if (numbered) {
        char b[16];
        std::snprintf(b, sizeof b, "%6d", n);
        s += b;
        s += "\xe2\x86\x92";  // →
      }
      s += CodeLine() + "\n";
    }
    return s;
  }
  std::string Shell(std::size_t chars) {
    std::string s;
    while (s.size() < chars) {
      switch (U(8)) {
        case 0: s += Path() + ":" + Number() + ":" + std::to_string(U(80)) + ": error: " + Prose(30 + U(40)); break;
        case 1: s += Hex(7) + " " + Prose(20 + U(40)); break;
        case 2: s += "ok " + std::to_string(U(200)) + " - " + Ident() + " " + Number() + "ms"; break;
        case 3: s += "  " + Word() + " " + Number() + " " + Word() + " " + Number() + "%"; break;
        case 4: s += "$ " + Word() + " " + Ident() + " --" + Word() + " " + Path(); break;
        case 5: s += U(4) ? Word() + "=" + Alnum(3 + U(10)) + " " + Word() + ": " + Number() : "+ " + CodeLine(); break;
        case 6: s += FormatIsoUtc(1767000000000 + U(100000000)) + " " + (U(3) ? "INFO " : "WARN ") + Prose(20 + U(50)); break;
        default: s += Prose(20 + U(60)); break;
      }
      s += "\n";
    }
    return s;
  }
  std::string Listing(std::size_t chars) {
    std::string s;
    bool long_form = U(3) == 0;
    while (s.size() < chars) {
      if (long_form)
        s += std::string(U(4) ? "-rw-r--r--" : "drwxr-xr-x") + "  1 dev dev " + std::to_string(U(90000)) +
             " Nov " + std::to_string(1 + U(28)) + " 1" + std::to_string(U(10)) + ":" +
             std::to_string(10 + U(50)) + " " + Ident() + "." + kExt[U(16)] + "\n";
      else
        s += Path() + "\n";
    }
    return s;
  }
  std::string JsonText(std::size_t chars) {
    std::string s = "{";
    while (s.size() < chars) {
      if (s.size() > 1) s += ", ";
      s += "\"" + Ident() + "\": ";
      switch (U(4)) {
        case 0: s += Number(); break;
        case 1: s += U(2) ? "true" : "null"; break;
        default: s += "\"" + Word() + " " + Word() + "\"";
      }
    }
    return s + "}";
  }
  // A message: prose, now and then with a code block or a Chinese sentence.
  std::string Message(std::size_t chars) {
    NewText();
    std::string s = Prose(chars);
    if (chars > 300 && U(4) == 0) s += "\n\n```\n" + Code(chars / 3, false) + "```\n";
    if (Real() < kCjkMessages) {
      std::string z = kChinese[U(sizeof kChinese / sizeof *kChinese)];
      s = U(2) ? z + "，" + s : s + " " + z + "。";
    }
    return s;
  }
  std::string Base64(std::size_t n) { return RandomBase64(rng_, n); }
  std::string Uuid() {
    return Hex(8) + "-" + Hex(4) + "-4" + Hex(3) + "-8" + Hex(3) + "-" + Hex(12);
  }
  std::string cwd_;

 private:
  std::mt19937& rng_;
  std::vector<std::string> topic_;
};

// One tool result's kind and text; `tool` is the tool that made it.
struct Result {
  std::string tool, input, text;
};

Result ClaudeTool(Text& t) {
  Result r;
  t.NewText();
  std::uint32_t k = t.U(100);
  if (k < 11) {  // Read: a file's content
    std::string path = t.Path();
    r.tool = "Read";
    r.input = "{\"file_path\":\"" + Esc(path) + "\"}";
    r.text = t.Code(t.Len(1800, 1.0, 80, 60000), true);
  } else if (k < 39) {  // Bash: shell output
    r.tool = "Bash";
    r.input = "{\"command\":\"" + Esc(t.Word() + " " + t.Ident() + " " + t.Path()) +
              "\",\"description\":\"" + Esc(t.Prose(t.Len(30, 0.5, 10, 120))) + "\"}";
    r.text = t.Shell(t.Len(300, 1.6, 10, 40000));
  } else if (k < 46) {  // Glob / ls: a listing
    r.tool = "Glob";
    r.input = "{\"pattern\":\"**/*." + std::string(kExt[t.U(16)]) + "\"}";
    r.text = t.Listing(t.Len(500, 1.2, 30, 20000));
  } else if (k < 47) {  // an MCP tool: JSON
    r.tool = "mcp__" + t.Word() + "__" + t.Ident();
    r.input = "{\"" + t.Ident() + "\":\"" + Esc(t.Word()) + "\"}";
    r.text = t.JsonText(t.Len(300, 1.0, 20, 8000));
  } else if (k < 53) {  // Edit and Write: a line of confirmation, or nothing
    r.tool = t.U(2) ? "Edit" : "Write";
    r.input = "{\"file_path\":\"" + Esc(t.Path()) + "\",\"old_string\":\"" +
              Esc(t.Code(t.Len(150, 0.9, 10, 1500), false)) + "\",\"new_string\":\"" +
              Esc(t.Code(t.Len(250, 0.9, 10, 3000), false)) + "\"}";
    r.text = t.U(3) ? "" : " ";
  } else {  // Edit / TodoWrite / Task / WebSearch / Grep answers: prose
    static const char* const kTools[] = {"Edit", "TodoWrite", "Task", "WebSearch", "Grep", "Edit"};
    r.tool = kTools[t.U(6)];
    r.input = "{\"" + t.Ident() + "\":\"" + Esc(t.Prose(t.Len(120, 1.0, 10, 1800))) + "\"}";
    r.text = t.Prose(t.Len(110, 1.7, 20, 30000));
  }
  return r;
}

std::string Usage(Text& t) {
  return "\"usage\":{\"input_tokens\":" + std::to_string(t.U(20)) +
         ",\"cache_creation_input_tokens\":" + std::to_string(t.U(5000)) +
         ",\"cache_read_input_tokens\":" + std::to_string(20000 + t.U(100000)) +
         ",\"cache_creation\":{\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":" +
         std::to_string(t.U(5000)) + "},\"output_tokens\":" + std::to_string(t.U(3000)) +
         ",\"service_tier\":\"standard\"}";
}

}  // namespace

Session::Session(std::mt19937& rng, bool codex, std::string id, std::string cwd)
    : rng_(rng), codex_(codex), id_(std::move(id)), cwd_(std::move(cwd)) {}

void Session::Turn(std::string& out, std::int64_t& ts) {
  if (codex_)
    CodexTurn(out, ts);
  else
    ClaudeTurn(out, ts);
  ++turns_;
}

void Session::ClaudeTurn(std::string& out, std::int64_t& ts) {
  Text t(rng_);
  t.cwd_ = cwd_;
  auto env = [&](const std::string& uuid) {
    ts += 300 + t.U(15000);
    std::string e = "\"parentUuid\":" + (parent_.empty() ? "null" : "\"" + parent_ + "\"") +
                    ",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"" + cwd_ +
                    "\",\"sessionId\":\"" + id_ +
                    "\",\"version\":\"2.1.12\",\"gitBranch\":\"main\",\"slug\":\"" +
                    "quiet-" + id_.substr(0, 6) + "-lantern\"";
    parent_ = uuid;
    return e;
  };
  auto line = [&](const std::string& body) { out += "{" + body + "}\n"; };
  if (turns_ == 0)
    line("\"type\":\"file-history-snapshot\",\"messageId\":\"" + t.Uuid() +
         "\",\"snapshot\":{\"messageId\":\"" + t.Uuid() +
         "\",\"trackedFileBackups\":{},\"timestamp\":\"" + FormatIsoUtc(ts) +
         "\"},\"isSnapshotUpdate\":false");
  line("\"type\":\"queue-operation\",\"operation\":\"" + std::string(t.U(2) ? "enqueue" : "dequeue") +
       "\",\"timestamp\":\"" + FormatIsoUtc(ts) + "\",\"sessionId\":\"" + id_ + "\"");
  // The prompt.
  std::string uuid = t.Uuid();
  line(env(uuid) + ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"" +
       Esc(t.Message(t.Len(50, 1.6, 2, 70000))) + "\"},\"uuid\":\"" + uuid +
       "\",\"timestamp\":\"" + FormatIsoUtc(ts) + "\",\"permissionMode\":\"default\"");
  const std::string req = "req_011C" + t.Hex(16), msg = "msg_01" + t.Hex(20);
  auto assistant = [&](const std::string& block) {
    std::string u = t.Uuid();
    line(env(u) + ",\"message\":{\"model\":\"claude-opus-4-5-20251101\",\"id\":\"" + msg +
         "\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[" + block +
         "],\"stop_reason\":null,\"stop_sequence\":null," + Usage(t) + "},\"requestId\":\"" + req +
         "\",\"type\":\"assistant\",\"uuid\":\"" + u + "\",\"timestamp\":\"" + FormatIsoUtc(ts) +
         "\"");
    return u;
  };
  if (t.U(3) == 0) {  // the harness's reminder: a meta event
    t.NewText();
    std::string u = t.Uuid();
    line(env(u) + ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"<system-reminder>\\n" +
         Esc(t.Prose(t.Len(500, 0.8, 50, 6000))) + "\\n</system-reminder>\"},\"isMeta\":true,\"uuid\":\"" + u +
         "\",\"timestamp\":\"" + FormatIsoUtc(ts) + "\"");
  }
  int steps = static_cast<int>(t.Len(2.5, 1.0, 0, 40));
  for (int s = 0; s <= steps; ++s) {
    t.NewText();
    if (t.U(3) == 0)
      assistant("{\"type\":\"thinking\",\"thinking\":\"" + Esc(t.Prose(t.Len(300, 1.0, 20, 8000))) +
                "\",\"signature\":\"" + t.Base64(t.Len(900, 0.6, 200, 6000)) + "\"}");
    if (s == steps) break;
    if (t.U(3) == 0)
      assistant("{\"type\":\"text\",\"text\":\"" + Esc(t.Message(t.Len(90, 1.2, 5, 4000))) + "\"}");
    Result r = ClaudeTool(t);
    const std::string call = "toolu_01" + t.Base64(22);
    std::string asst = assistant("{\"type\":\"tool_use\",\"id\":\"" + call + "\",\"name\":\"" +
                                 r.tool + "\",\"input\":" + r.input + "}");
    for (int h = t.U(3); h > 0; --h)
      line(env(t.Uuid()) + ",\"type\":\"progress\",\"data\":{\"type\":\"hook_progress\",\"hookEvent\":"
           "\"PostToolUse\",\"hookName\":\"PostToolUse:" + r.tool + "\",\"command\":\"" +
           "callback\"},\"toolUseID\":\"" + call + "\",\"parentToolUseID\":\"" + call +
           "\",\"uuid\":\"" + t.Uuid() + "\",\"timestamp\":\"" + FormatIsoUtc(ts) + "\"");
    // The result, and Claude Code's structured copy of it.
    std::string structured;
    const std::string e = Esc(r.text);
    if (r.tool == "Read")
      structured = "{\"type\":\"text\",\"file\":{\"filePath\":\"" + Esc(t.Path()) +
                   "\",\"content\":\"" + e + "\",\"numLines\":" + std::to_string(t.U(400)) +
                   ",\"startLine\":1,\"totalLines\":" + std::to_string(t.U(900)) + "}}";
    else if (r.tool == "Bash")
      structured = "{\"stdout\":\"" + e + "\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}";
    else if (r.tool == "Edit")
      structured = "{\"filePath\":\"" + Esc(t.Path()) + "\",\"oldString\":\"" +
                   Esc(t.CodeLine()) + "\",\"newString\":\"" + Esc(t.CodeLine()) +
                   "\",\"originalFile\":\"" + Esc(t.Code(t.Len(4000, 1.0, 200, 80000), false)) +
                   "\",\"structuredPatch\":[{\"oldStart\":" + std::to_string(t.U(300)) +
                   ",\"oldLines\":3,\"newStart\":" + std::to_string(t.U(300)) +
                   ",\"newLines\":4,\"lines\":[\"" + Esc(t.CodeLine()) + "\",\"-" +
                   Esc(t.CodeLine()) + "\",\"+" + Esc(t.CodeLine()) + "\"]}],\"userModified\":false}";
    else if (r.tool == "Glob")
      structured = "{\"filenames\":[\"" + Esc(t.Path()) + "\",\"" + Esc(t.Path()) +
                   "\"],\"durationMs\":" + std::to_string(t.U(300)) + ",\"numFiles\":" +
                   std::to_string(t.U(300)) + ",\"truncated\":false}";
    else
      structured = "\"" + e + "\"";
    std::string u = t.Uuid();
    line(env(u) + ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"" +
         call + "\",\"type\":\"tool_result\",\"content\":\"" + e +
         "\"}]},\"uuid\":\"" + u + "\",\"timestamp\":\"" + FormatIsoUtc(ts) +
         "\",\"toolUseResult\":" + structured + ",\"sourceToolAssistantUUID\":\"" + asst + "\"");
  }
  assistant("{\"type\":\"text\",\"text\":\"" + Esc(t.Message(t.Len(180, 1.6, 5, 30000))) + "\"}");
  if (t.U(3) == 0)
    line("\"type\":\"last-prompt\",\"lastPrompt\":\"" + Esc(t.Prose(t.Len(40, 0.8, 5, 300))) +
         "\",\"sessionId\":\"" + id_ + "\"");
  if (t.U(4) == 0)
    line(env(t.Uuid()) + ",\"type\":\"system\",\"subtype\":\"stop_hook_summary\",\"hookCount\":1,"
         "\"hookInfos\":[{\"command\":\"callback\"}],\"hookErrors\":[],\"preventedContinuation\":false,"
         "\"stopReason\":\"\",\"hasOutput\":false,\"level\":\"suggestion\",\"timestamp\":\"" +
         FormatIsoUtc(ts) + "\",\"uuid\":\"" + t.Uuid() + "\"");
}

void Session::CodexTurn(std::string& out, std::int64_t& ts) {
  Text t(rng_);
  t.cwd_ = cwd_;
  auto line = [&](const std::string& type, const std::string& payload) {
    ts += 200 + t.U(8000);
    out += "{\"timestamp\":\"" + FormatIsoUtc(ts) + "\",\"type\":\"" + type + "\",\"payload\":" +
           payload + "}\n";
  };
  // The instructions every turn_context repeats: the same in every session
  // of a person (their AGENTS.md and the harness's), about 14 KB.
  static const std::string raw_instructions = [] {
    std::mt19937 r(4242);
    Text x(r);
    return "# AGENTS.md instructions\n\n" + x.Prose(12800);
  }();
  static const std::string instructions = Esc(raw_instructions);
  static const std::string base = Esc(TruncateChars(raw_instructions, 11000));
  static const std::string collaboration = [] {
    std::mt19937 r(4343);
    Text x(r);
    return Esc(x.Prose(850));
  }();
  if (turns_ == 0) {
    line("session_meta", "{\"id\":\"" + id_ + "\",\"timestamp\":\"" + FormatIsoUtc(ts) +
                             "\",\"cwd\":\"" + cwd_ +
                             "\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.121.0\","
                             "\"source\":\"cli\",\"model_provider\":\"openai\",\"base_instructions\":"
                             "{\"text\":\"" + base + "\"},\"git\":{\"commit_hash\":\"" +
                             t.Hex(40) + "\",\"branch\":\"main\"}}");
    line("response_item", "{\"type\":\"message\",\"role\":\"developer\",\"content\":[{\"type\":"
                          "\"input_text\",\"text\":\"<permissions instructions>" +
                              Esc(t.Prose(1500)) + "</permissions instructions>\"}]}");
    line("response_item", "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":"
                          "\"input_text\",\"text\":\"<environment_context>\\n  <cwd>" + cwd_ +
                              "</cwd>\\n  <shell>bash</shell>\\n</environment_context>\"}]}");
    t.NewText();
    line("response_item", "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":"
                          "\"input_text\",\"text\":\"# AGENTS.md instructions for " + cwd_ +
                              "\\n\\n<INSTRUCTIONS>\\n" + Esc(t.Prose(t.Len(5000, 0.6, 500, 20000))) +
                              "\\n</INSTRUCTIONS>\"}]}");
  }
  const std::string turn = t.Uuid();
  line("event_msg", "{\"type\":\"task_started\",\"turn_id\":\"" + turn +
                        "\",\"model_context_window\":258400}");
  std::string prompt = Esc(t.Message(t.Len(400, 1.0, 5, 20000)));
  line("response_item", "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\","
                        "\"text\":\"" + prompt + "\"}]}");
  line("event_msg", "{\"type\":\"user_message\",\"message\":\"" + prompt + "\",\"images\":[]}");
  auto token_count = [&] {
    auto usage = [&] {
      return "{\"input_tokens\":" + std::to_string(t.U(200000)) + ",\"cached_input_tokens\":" +
             std::to_string(t.U(200000)) + ",\"output_tokens\":" + std::to_string(t.U(5000)) +
             ",\"reasoning_output_tokens\":" + std::to_string(t.U(3000)) + ",\"total_tokens\":" +
             std::to_string(t.U(300000)) + "}";
    };
    line("event_msg", "{\"type\":\"token_count\",\"info\":{\"total_token_usage\":" + usage() +
                          ",\"last_token_usage\":" + usage() +
                          ",\"model_context_window\":258400},\"rate_limits\":{\"limit_id\":"
                          "\"codex\",\"primary\":{\"used_percent\":" + t.Number() +
                          ",\"window_minutes\":300,\"resets_at\":" + std::to_string(1772000000 + t.U(900000)) +
                          "},\"secondary\":{\"used_percent\":" + t.Number() +
                          ",\"window_minutes\":10080,\"resets_at\":" +
                          std::to_string(1772000000 + t.U(900000)) + "},\"credits\":null,\"plan_type\":\"plus\"}}");
  };
  int steps = static_cast<int>(t.Len(6, 0.9, 1, 80));
  for (int s = 0; s <= steps; ++s) {
    line("turn_context", "{\"turn_id\":\"" + turn + "\",\"cwd\":\"" + cwd_ +
                             "\",\"approval_policy\":\"never\",\"sandbox_policy\":{\"type\":"
                             "\"danger-full-access\"},\"model\":\"gpt-5.3-codex\",\"personality\":"
                             "\"pragmatic\",\"collaboration_mode\":{\"mode\":\"default\",\"settings\":"
                             "{\"developer_instructions\":\"" + collaboration +
                             "\"}},\"effort\":\"high\",\"summary\":\"auto\",\"user_instructions\":\"" +
                             instructions + "\",\"truncation_policy\":{\"mode\":\"tokens\",\"limit\":10000}}");
    token_count();
    std::string summary = Esc("**" + t.Prose(t.Len(40, 0.4, 10, 120)) + "**");
    line("event_msg", "{\"type\":\"agent_reasoning\",\"text\":\"" + summary + "\"}");
    line("response_item", "{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"" +
                              summary + "\"}],\"content\":null,\"encrypted_content\":\"gAAAAA" +
                              t.Base64(t.Len(1400, 0.5, 300, 8000)) + "\"}");
    if (s == steps) break;
    if (t.U(4) == 0) {
      std::string m = Esc(t.Message(t.Len(170, 0.6, 10, 3000)));
      line("event_msg", "{\"type\":\"agent_message\",\"message\":\"" + m + "\",\"phase\":\"commentary\"}");
      line("response_item", "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
                            "\"output_text\",\"text\":\"" + m + "\"}],\"phase\":\"commentary\"}");
    }
    for (int calls = 1 + (t.U(3) == 0); calls > 0; --calls) {
    const std::string call = "call_" + t.Base64(24);
    t.NewText();
    std::uint32_t k = t.U(100);
    std::string output;
    if (k < 20)
      output = t.Code(t.Len(1800, 1.0, 60, 60000), false);
    else if (k < 85)
      output = t.Shell(t.Len(450, 1.5, 10, 60000));
    else if (k < 89)
      output = t.Listing(t.Len(500, 1.2, 30, 20000));
    else if (k < 94)
      output = t.JsonText(t.Len(300, 1.0, 20, 8000));
    else
      output = t.Prose(t.Len(200, 1.2, 20, 8000));
    std::string command = t.Word() + " " + t.Ident() + " " + t.Path();
    if (t.U(5) == 0) command += " && " + t.Shell(t.Len(100, 1.2, 10, 1800));
    std::string args = "{\"command\":\"" + Esc(command) +
                       "\",\"workdir\":\"" + cwd_ + "\"}";
    line("response_item", "{\"type\":\"function_call\",\"name\":\"exec_command\",\"arguments\":\"" +
                              Esc(args) + "\",\"call_id\":\"" + call + "\"}");
    token_count();
    line("response_item", "{\"type\":\"function_call_output\",\"call_id\":\"" + call +
                              "\",\"output\":\"" +
                              Esc("Chunk ID: " + t.Hex(6) + "\nWall time: 0." + t.Number() +
                                  " seconds\nProcess exited with code 0\nOutput:\n" + output) +
                              "\"}");
    }
  }
  const std::string raw_answer = t.Message(t.Len(200, 0.7, 10, 6000));
  const std::string answer = Esc(raw_answer);
  line("event_msg", "{\"type\":\"agent_message\",\"message\":\"" + answer + "\",\"phase\":\"final_answer\"}");
  line("response_item", "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
                        "\"output_text\",\"text\":\"" + answer + "\"}],\"phase\":\"final_answer\"}");
  token_count();
  line("event_msg", "{\"type\":\"task_complete\",\"turn_id\":\"" + turn + "\",\"last_agent_message\":\"" +
                        Esc(TruncateChars(raw_answer, 400)) + "\"}");
}

}  // namespace origin::test::real
