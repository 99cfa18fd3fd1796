// SPDX-License-Identifier: MIT
#include "client/command_table.hpp"

#include <algorithm>

namespace origin::client {

namespace {

constexpr std::size_t kWidth = 80;

const Option* FindOption(const Command& cmd, std::string_view name) {
  for (const Option& o : cmd.options)
    if (o.name == name) return &o;
  return nullptr;
}

// "timeline and search", "a, b and c"
std::string List(const std::vector<std::string_view>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? " and " : ", ";
    s += names[i];
  }
  return s;
}

// The commands that take option `name`, in table order.
std::vector<std::string_view> TakenBy(std::string_view name) {
  std::vector<std::string_view> out;
  for (const Command* c : Commands())
    if (FindOption(*c, name) != nullptr) out.push_back(c->name);
  return out;
}

// An option `cmd` does not take: which commands do (by name), when some do.
[[noreturn]] void NotAnOption(const Command& cmd, std::string_view name) {
  std::vector<std::string_view> takers = TakenBy(name);
  std::sort(takers.begin(), takers.end());
  if (takers.empty()) throw UsageError("unknown option --" + std::string(name));
  throw UsageError("--" + std::string(name) + " is for " + List(takers) +
                   "; it is not an option of " + std::string(cmd.name));
}

// `words` joined by spaces, broken before a word that would pass kWidth;
// continuation lines start with `indent` spaces.
std::string Wrap(const std::string& first, const std::vector<std::string>& words,
                 std::size_t indent) {
  std::string out = first, pad(indent, ' ');
  std::size_t col = first.size();
  for (const std::string& w : words) {
    if (col > indent && col + 1 + w.size() > kWidth) {
      out += "\n" + pad;
      col = indent;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
      ++col;
    }
    out += w;
    col += w.size();
  }
  return out + "\n";
}

std::string OptionWord(const Option& o) {
  return "--" + std::string(o.name) + (o.value.empty() ? "" : " " + std::string(o.value));
}

// Two columns: `left` padded to `width`, then `right`, wrapped at kWidth
// under itself (and below `left` when that is wider than `width`).
std::string Row(const std::string& left, std::string_view right, std::size_t width) {
  std::string first = "  " + left;
  if (left.size() + 1 > width)
    first += "\n" + std::string(width + 2, ' ');
  else
    first += std::string(width - left.size(), ' ');
  std::vector<std::string> words;
  for (std::size_t at = 0; at < right.size();) {
    std::size_t end = std::min(right.find(' ', at), right.size());
    if (end > at) words.emplace_back(right.substr(at, end - at));
    at = end + 1;
  }
  // Wrap counts columns from the start of the last line of `first`.
  const std::size_t nl = first.rfind('\n');
  const std::string head = nl == std::string::npos ? "" : first.substr(0, nl + 1);
  return head + Wrap(first.substr(head.size()), words, width + 2);
}

}  // namespace

bool Invocation::Flag(std::string_view name) const {
  return std::any_of(options.begin(), options.end(),
                     [&](const auto& o) { return o.first == name; });
}

std::optional<std::string> Invocation::Value(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

const Command* FindCommand(std::string_view name) {
  for (const Command* c : Commands())
    if (c->name == name) return c;
  return nullptr;
}

Invocation Parse(const Command& cmd, const std::vector<std::string>& words, bool* help) {
  *help = false;
  for (const std::string& w : words) {
    if (w == "--") break;
    if (w == "--help" || w == "-h") {
      *help = true;
      return {};
    }
  }
  Invocation inv;
  inv.command = &cmd;
  bool options_ended = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (options_ended || w.size() < 2 || w[0] != '-') {
      inv.args.push_back(w);
      continue;
    }
    if (w == "--") {
      options_ended = true;
      continue;
    }
    if (w.compare(0, 2, "--") != 0) throw UsageError("unknown option " + w);
    const std::size_t eq = w.find('=');
    const std::string name = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const Option* o = FindOption(cmd, name);
    if (o == nullptr) NotAnOption(cmd, name);
    std::string value;
    if (o->value.empty()) {
      if (eq != std::string::npos) throw UsageError("--" + name + " takes no value");
    } else if (eq != std::string::npos) {
      value = w.substr(eq + 1);
    } else if (i + 1 < words.size()) {
      value = words[++i];
    } else {
      throw UsageError("--" + name + " needs a value (" + std::string(o->value) + ")");
    }
    if (!o->value.empty()) inv.values[name] = value;
    inv.options.emplace_back(name, std::move(value));
  }
  if (inv.args.size() < cmd.min_args)
    throw UsageError(std::string(cmd.name) + " needs " + std::string(cmd.missing));
  if (inv.args.size() > cmd.max_args) throw UsageError("unexpected argument " + inv.args.back());
  return inv;
}

std::string UsageLine(const Command& cmd) {
  std::vector<std::string> words;
  if (!cmd.args.empty()) words.emplace_back(cmd.args);
  for (const Option& o : cmd.options)
    words.push_back(o.required ? OptionWord(o) : "[" + OptionWord(o) + "]");
  const std::string first = "usage: origin " + std::string(cmd.name);
  return Wrap(first, words, first.size() + 1);
}

std::string CommandHelp(const Command& cmd) {
  std::string out = UsageLine(cmd) + "\n" + std::string(cmd.details);
  if (!cmd.options.empty()) {
    std::size_t width = 0;
    for (const Option& o : cmd.options) width = std::max(width, OptionWord(o).size() + 2);
    width = std::min<std::size_t>(width, 22);
    out += "\noptions:\n";
    for (const Option& o : cmd.options) out += Row(OptionWord(o), o.help, width);
  }
  if (!cmd.examples.empty()) out += "\nexamples:\n" + std::string(cmd.examples);
  return out;
}

std::string GlobalHelp() {
  std::string out =
      "usage: origin <command> [arguments] [options]\n"
      "       origin help <command>    a command's usage, options and examples\n"
      "\n"
      "One shared, inspectable memory for your AI coding agents.\n"
      "\n"
      "commands:\n";
  for (const Command* c : Commands()) {
    std::string left = std::string(c->name);
    if (!c->args.empty()) left += " " + std::string(c->args);
    out += Row(left, c->summary, 24);
  }
  // Each option once, with the commands that take it: made from the same
  // entries the parser reads.
  out += "\noptions, and the commands that take them:\n";
  std::vector<std::string_view> seen;
  for (const Command* c : Commands()) {
    for (const Option& o : c->options) {
      if (std::find(seen.begin(), seen.end(), o.name) != seen.end()) continue;
      seen.push_back(o.name);
      std::string takers;
      for (std::string_view t : TakenBy(o.name))
        takers += (takers.empty() ? "" : ", ") + std::string(t);
      out += Row(OptionWord(o), takers, 18);
    }
  }
  out +=
      "  --help            this text; after a command, that command's own\n"
      "  --version         the version of origin\n"
      "  --no-pager        any command: no pager, even on a terminal\n"
      "  --color[=WHEN]    any command: colour auto (default), always or never\n"
      "  --                ends the options: what follows is arguments\n"
      "Options take their value as --opt VALUE or --opt=VALUE.  DATE is\n"
      "YYYY-MM-DD[THH:MM[:SS]], local, or with Z or +HH:MM; or relative: now,\n"
      "today, yesterday, or a time ago such as 30m, 12h, 2d or 1w.\n"
      "\n"
      "The store is $ORIGIN_HOME (default ~/.origin).  origin starts originsd when\n"
      "none answers; ORIGIN_NO_AUTOSTART=1 turns that off.  Long output goes through\n"
      "$ORIGIN_PAGER, else $PAGER, else less -FRX, on a terminal only.\n"
      "exit codes: 0 ok, 1 failed (sync: a source could not be read or stored),\n"
      "  2 usage, 3 daemon unavailable, 4 not found, 5 (status) something needs you:\n"
      "  see its list\n";
  return out;
}

}  // namespace origin::client
