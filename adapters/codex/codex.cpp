// SPDX-License-Identifier: MIT
#include "adapters/codex/codex.hpp"

#include <rapidjson/document.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "adapters/common/harness.hpp"
#include "adapters/common/json.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

namespace {

constexpr std::string_view kSessionIndex = "session_index.jsonl";

// The thread id in a rollout's name: the 36 characters before .jsonl.
std::string ThreadFromKey(std::string_view key) {
  std::string_view base = Basename(key);
  if (EndsWith(base, ".jsonl")) base.remove_suffix(6);
  return std::string(base.size() >= 36 ? base.substr(base.size() - 36) : base);
}

// A forked rollout (session_meta's forked_from_id) starts with a copy of
// its parent's history, which Codex writes at once when it forks: the
// parent's own session_meta first, then its items, each stamped when it
// was copied, and, for a sub-agent spawned with the parent's context, a
// tool output for the parent's spawn call that tells the new agent so.
// Those lines are the parent's (it holds them as its own), not the
// sub-agent's: they stay in the mirror and give no event.
enum class Copy { kNone, kMaybe, kCopying };
// The copy is written in one burst: a line more than this after the
// latest line of the copy is the sub-agent's own.
constexpr std::int64_t kCopyBurstMs = 1000;

bool IsForkNotice(std::string_view text) {
  return text.find("forked from your parent") != std::string_view::npos;
}

struct CodexState final : FileState {
  std::string thread;  // from the file name, else session_meta
  std::optional<std::string> cwd, branch, model, version;
  bool internal = false;   // a memory-consolidation sub-agent's rollout
  bool meta_seen = false;  // the rollout's own session_meta was read
  Copy copy = Copy::kNone;
  std::int64_t copy_ts = 0;  // the latest time in the copy so far

  std::string Save() const override {
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    auto put = [&](const char* k, const std::optional<std::string>& v) {
      if (v) d.AddMember(rapidjson::StringRef(k), rapidjson::Value(v->c_str(), a), a);
    };
    put("cwd", cwd);
    put("branch", branch);
    put("model", model);
    put("version", version);
    if (internal) d.AddMember("internal", true, a);
    if (meta_seen) d.AddMember("meta", true, a);
    if (copy != Copy::kNone) {
      d.AddMember("copy", copy == Copy::kMaybe ? 1 : 2, a);
      d.AddMember("copy_ts", copy_ts, a);
    }
    return Serialize(d);
  }
};

bool IsInjectedUserText(std::string_view text) {
  std::size_t p = text.find_first_not_of(" \t\r\n");
  if (p == std::string_view::npos) return false;
  text = text.substr(p);
  for (std::string_view prefix :
       {"<environment_context>", "<user_instructions>", "<permissions instructions>",
        "# AGENTS.md instructions", "<user_shell_command>", "<turn_aborted>"}) {
    if (text.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

std::string ContentText(const Json* content) {
  std::string out;
  if (content == nullptr) return out;
  if (content->IsString()) return std::string(content->GetString(), content->GetStringLength());
  if (!content->IsArray()) return out;
  for (const Json& b : content->GetArray()) {
    auto type = Str(b, "type");
    if (type == "input_text" || type == "output_text" || type == "text")
      AppendParagraph(out, Str(b, "text").value_or(""));
    else if (type == "input_image")
      AppendParagraph(out, UrlAttachmentMarker("image", Str(b, "image_url").value_or("")));
  }
  return out;
}

// function_call_output.output: a string in most versions; an object with
// content, or a list of content items, in others.
std::string OutputText(const Json* output) {
  if (output == nullptr) return {};
  if (output->IsString()) return std::string(output->GetString(), output->GetStringLength());
  if (output->IsObject()) {
    if (const Json* c = Member(*output, "content")) return OutputText(c);
    return Serialize(*output);
  }
  if (output->IsArray()) return ContentText(output);
  return Serialize(*output);
}

}  // namespace

Discovery CodexAdapter::Discover() const {
  Discovery all;
  std::map<std::string, SourceFile> by_key;  // the plain file wins over .zst
  for (const char* sub : {"sessions", "archived_sessions"}) {
    WalkRules rules;
    rules.enter_dir = [](std::string_view) { return true; };
    rules.accept_file = [](std::string_view rel, SourceFile& f) {
      std::string_view base = Basename(rel);
      if (base.substr(0, 8) != "rollout-") return false;
      if (EndsWith(base, ".jsonl.zst")) {
        f.zstd = true;
        base.remove_suffix(4);
      } else if (!EndsWith(base, ".jsonl")) {
        return false;
      }
      f.key = "rollouts/" + std::string(base);
      return true;
    };
    Discovery d = Walk(root_ + "/" + sub, rules);
    all.root_exists = all.root_exists || d.root_exists;
    all.dirs.insert(all.dirs.end(), d.dirs.begin(), d.dirs.end());
    all.problems.insert(all.problems.end(), d.problems.begin(), d.problems.end());
    for (SourceFile& f : d.files) {
      auto it = by_key.find(f.key);
      if (it == by_key.end() || (it->second.zstd && !f.zstd) ||
          (it->second.zstd == f.zstd && f.mtime_ns > it->second.mtime_ns))
        by_key[f.key] = std::move(f);
    }
  }
  if (IsDirectory(root_)) {
    all.dirs.insert(all.dirs.begin(), root_);
    all.root_exists = true;
    // The thread names the user gave, newest line per id last (append-only).
    struct stat st {};
    const std::string index = root_ + "/session_index.jsonl";
    if (::stat(index.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      SourceFile f;
      f.abs_path = index;
      f.key = std::string(kSessionIndex);
      f.size = st.st_size;
      f.mtime_ns = MtimeNs(st);
      by_key[f.key] = f;
    }
  }
  for (auto& [k, f] : by_key) all.files.push_back(std::move(f));
  return all;
}

std::unique_ptr<FileState> CodexAdapter::LoadState(std::string_view key,
                                                   std::string_view saved) const {
  auto st = std::make_unique<CodexState>();
  st->thread = ThreadFromKey(key);
  if (!saved.empty()) {
    rapidjson::Document d;
    d.Parse(saved.data(), saved.size());
    if (!d.HasParseError() && d.IsObject()) {
      st->cwd = NonEmpty(d, "cwd");
      st->branch = NonEmpty(d, "branch");
      st->model = NonEmpty(d, "model");
      st->version = NonEmpty(d, "version");
      st->internal = Bool(d, "internal");
      // A state saved before "meta" was: a session_meta gave its cwd or version.
      st->meta_seen = Bool(d, "meta") || st->cwd || st->version;
      if (const Json* c = Member(d, "copy"); c != nullptr && c->IsInt())
        st->copy = c->GetInt() == 1   ? Copy::kMaybe
                   : c->GetInt() == 2 ? Copy::kCopying
                                      : Copy::kNone;
      if (const Json* t = Member(d, "copy_ts"); t != nullptr && t->IsInt64())
        st->copy_ts = t->GetInt64();
    }
  }
  return st;
}

ParsedLine CodexAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  rapidjson::Document doc;
  ParseObject(line, doc);
  auto* st = dynamic_cast<CodexState*>(ctx.state);
  CodexState scratch;
  if (st == nullptr) {
    scratch.thread = ThreadFromKey(ctx.key);
    st = &scratch;
  }
  ParsedLine out;
  if (ctx.key == kSessionIndex) {
    // {"id", "thread_name", "updated_at"}: the name the user gave the
    // thread, an event <thread>:index:<line> dated by updated_at.
    auto id = NonEmpty(doc, "id");
    auto name = NonEmpty(doc, "thread_name");
    if (id && name) {
      ParsedTitle& t = out.titles.emplace_back();
      t.native_id = *id + ":index:" + std::to_string(ctx.line_no);
      t.session = *id;
      t.text = SanitizeUtf8(*name);
      t.manual = true;
      t.ts = ParseIsoMs(Str(doc, "updated_at").value_or("")).value_or(0);
    }
    return out;
  }
  auto type = Str(doc, "type");
  const Json* payload = Member(doc, "payload");
  if (!type || payload == nullptr || !payload->IsObject()) return out;
  auto ts_str = Str(doc, "timestamp");
  std::optional<std::int64_t> ts = ts_str ? ParseIsoMs(*ts_str) : std::nullopt;

  // The parent's history a forked rollout starts with: nothing of it is
  // the sub-agent's (see Copy).
  if (st->copy == Copy::kMaybe)
    st->copy =
        *type == "session_meta" && Str(*payload, "id") != st->thread ? Copy::kCopying : Copy::kNone;
  if (st->copy == Copy::kCopying) {
    if (!ts || *ts - st->copy_ts < kCopyBurstMs) {
      if (ts) st->copy_ts = std::max(st->copy_ts, *ts);
      const auto ptype = Str(*payload, "type").value_or("");
      if (*type == "response_item" &&
          (ptype == "function_call_output" || ptype == "custom_tool_call_output") &&
          IsForkNotice(OutputText(Member(*payload, "output"))))
        st->copy = Copy::kNone;  // the last line of the copy
      return out;
    }
    st->copy = Copy::kNone;
  }

  if (*type == "session_meta") {
    // Only the rollout's own (the first) describes it; a forked rollout
    // repeats its ancestors' after it.
    if (st->meta_seen) return out;
    st->meta_seen = true;
    if (auto cwd = NonEmpty(*payload, "cwd")) st->cwd = cwd;
    if (auto v = NonEmpty(*payload, "cli_version")) st->version = v;
    if (const Json* git = Member(*payload, "git"); git != nullptr && git->IsObject())
      if (auto b = NonEmpty(*git, "branch")) st->branch = b;
    if (const Json* src = Member(*payload, "source"); src != nullptr) {
      std::string s = Serialize(*src);
      if (s.find("memory_consolidation") != std::string::npos) st->internal = true;
    }
    out.agent_version = st->version;
    // A sub-agent's (or a fork's) link to the thread it came from.
    std::optional<std::string> parent = NonEmpty(*payload, "forked_from_id");
    if (const Json* src = Member(*payload, "source"); !parent && src != nullptr && src->IsObject())
      if (const Json* sub = Member(*src, "subagent"); sub != nullptr && sub->IsObject())
        if (const Json* spawn = Member(*sub, "thread_spawn"); spawn != nullptr && spawn->IsObject())
          parent = NonEmpty(*spawn, "parent_thread_id");
    if (NonEmpty(*payload, "forked_from_id")) {
      st->copy = Copy::kMaybe;
      st->copy_ts = ts.value_or(ParseIsoMs(Str(*payload, "timestamp").value_or("")).value_or(0));
    }
    if (parent && *parent != st->thread && !st->internal) {
      std::optional<std::int64_t> at =
          ts ? ts : ParseIsoMs(Str(*payload, "timestamp").value_or(""));
      if (at) {
        ParsedEvent& link = out.events.emplace_back();
        link.native_id = st->thread + ":" + std::to_string(ctx.line_no);
        link.session = st->thread;
        link.ts = *at;
        link.role = "system";
        link.kind = "meta";
        link.tool_name = "parent";
        link.text = std::string(id()) + ":" + *parent;
        link.cwd = st->cwd;
        link.git_branch = st->branch;
      }
    }
    return out;
  }
  if (*type == "turn_context") {
    if (auto cwd = NonEmpty(*payload, "cwd")) st->cwd = cwd;
    if (auto m = NonEmpty(*payload, "model")) st->model = m;
    return out;
  }
  if (st->internal) return out;
  out.agent_version = st->version;

  ParsedEvent ev;
  ev.session = st->thread;
  ev.native_id = st->thread + ":" + std::to_string(ctx.line_no);
  ev.cwd = st->cwd;
  ev.git_branch = st->branch;
  auto need_ts = [&] {
    if (!ts) throw ParseError("a " + std::string(*type) + " line without a valid timestamp");
    ev.ts = *ts;
  };
  auto ptype = Str(*payload, "type").value_or("");

  if (*type == "response_item") {
    if (ptype == "message") {
      need_ts();
      auto role = Str(*payload, "role").value_or("");
      ev.text = ContentText(Member(*payload, "content"));
      if (ev.text.empty()) return out;
      if (role == "user") {
        ev.role = "user";
        ev.kind = IsInjectedUserText(ev.text) ? "meta" : "message";
      } else if (role == "assistant") {
        ev.role = "assistant";
        ev.kind = "message";
        ev.model = st->model;
      } else {
        ev.role = "system";  // developer and system instructions
        ev.kind = "meta";
      }
    } else if (ptype == "function_call" || ptype == "custom_tool_call") {
      need_ts();
      ev.role = "assistant";
      ev.kind = "tool_call";
      ev.tool_name = NonEmpty(*payload, "name");
      ev.call_id = NonEmpty(*payload, "call_id");
      const Json* args = Member(*payload, ptype == "function_call" ? "arguments" : "input");
      std::string text = args == nullptr    ? ""
                         : args->IsString() ? std::string(args->GetString())
                                            : Serialize(*args);
      ev.text = Truncate(text, kToolCallChars);
      ev.model = st->model;
    } else if (ptype == "local_shell_call" || ptype == "web_search_call") {
      need_ts();
      ev.role = "assistant";
      ev.kind = "tool_call";
      ev.tool_name = ptype == "local_shell_call" ? "local_shell" : "web_search";
      ev.call_id = NonEmpty(*payload, "call_id");
      const Json* action = Member(*payload, "action");
      ev.text = Truncate(action != nullptr ? Serialize(*action) : "", kToolCallChars);
    } else if (ptype == "function_call_output" || ptype == "custom_tool_call_output") {
      need_ts();
      ev.role = "tool";
      ev.kind = "tool_result";
      ev.call_id = NonEmpty(*payload, "call_id");
      ev.text = Truncate(OutputText(Member(*payload, "output")), kToolResultChars);
    } else {
      return out;  // reasoning (kept in the mirror, not indexed), and what we do not know
    }
    out.events.push_back(std::move(ev));
    return out;
  }
  if (*type == "event_msg") {
    if (ptype == "thread_name_updated") {
      auto name = NonEmpty(*payload, "thread_name");
      if (!name) name = NonEmpty(*payload, "name");
      if (name) {
        ParsedTitle& t = out.titles.emplace_back();
        t.native_id = ev.native_id;  // <thread>:<line>, as every rollout line's
        t.session = st->thread;
        t.text = SanitizeUtf8(*name);
        // session_index.jsonl has the last word on a thread's name (sources.md
        // 2.3): this one never replaces a name from there.
        t.manual = false;
        t.ts = ts.value_or(0);
      }
      return out;
    }
    if (ptype == "error") {
      need_ts();
      ev.role = "system";
      ev.kind = "meta";
      ev.is_error = true;
      ev.text = NonEmpty(*payload, "message").value_or("error");
      out.events.push_back(std::move(ev));
    }
    // user_message / agent_message repeat the response items; the rest are
    // turn boundaries and token counts.
    return out;
  }
  if (*type == "compacted") {
    need_ts();
    auto msg = NonEmpty(*payload, "message");
    if (!msg) return out;
    ev.role = "system";
    ev.kind = "meta";
    ev.text = *msg;
    out.events.push_back(std::move(ev));
  }
  return out;
}

}  // namespace origin::adapters
