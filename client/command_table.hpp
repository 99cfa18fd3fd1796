// SPDX-License-Identifier: MIT
#pragma once
// The CLI's table of commands (ninja's tool table, MPD's command table): one
// entry per command holds its name, arguments, options, help text with
// examples, the request it builds and the renderer of the answer.  The
// parser, `origin COMMAND --help`, `origin help COMMAND`, the usage line
// printed with a usage error and the global `origin --help` are all made from
// the entries, so that no help text can disagree with what a command accepts.
//
// Parsing rules (docs/cli.md): `--opt value` and `--opt=value`; `--` ends
// the options (what follows is arguments, even when it starts with a dash);
// an option a command does not take, or a missing value, is a UsageError.
// A valued option given twice keeps its last value; Invocation::options
// keeps every option in order for those that pair up (--cite ID --quote W).
//
// Left out on purpose: short options (only -h and -V), option bundling, and
// abbreviations of long options (a prefix that changes meaning when an
// option is added is a trap for scripts).

#include <rapidjson/document.h>

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace origin::client {

/// A bad command line: exit 2, with the command's usage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Option {
  std::string_view name;   // without its dashes: "limit"
  std::string_view value;  // what it takes ("N", "DATE"); empty for a flag
  std::string_view help;   // one line, for the command's help
  bool required = false;   // shown without brackets; checked by the builder or the daemon
  std::string_view choices;  // the values it takes, space-separated, when they are few (completion)
};

struct Command;

/// One parsed command line.
struct Invocation {
  const Command* command = nullptr;
  std::vector<std::string> args;                             // positional, in order
  std::vector<std::pair<std::string, std::string>> options;  // every option, in order
  std::map<std::string, std::string> values;                 // valued options, the last of each
  std::string request_key;  // a write's: random, one per run (RandomKey), the same when resent

  bool Flag(std::string_view name) const;
  /// The value of valued option `name` (the last given), if it was.
  std::optional<std::string> Value(const std::string& name) const;
  bool json() const { return Flag("json"); }
};

struct Command {
  std::string_view name;
  std::string_view args;  // synopsis of the arguments: "WORDS...", "ID [TEXT]"
  std::size_t min_args = 0, max_args = 0;
  std::string_view missing;  // what a run without enough arguments lacks
  std::string_view summary;  // one line for `origin --help`
  std::span<const Option> options;
  std::string_view details;   // what it does, for `origin help NAME`
  std::string_view examples;  // command lines, one a line
  std::string_view method;    // the socket method asked
  bool writes = false;        // sends request_key; sent again once after a lost daemon
  bool progress = false;      // the daemon sends progress: a bar on stderr
  /// The request's params: the method's struct of proto/requests.hpp, filled
  /// from the command line and encoded (the daemon decodes the same struct).
  /// Throws UsageError.  Runs before connecting.
  std::string (*build)(const Invocation&) = nullptr;
  /// Prints the answer; returns the exit code.
  int (*render)(rapidjson::Document& answer, const Invocation&) = nullptr;
  /// Commands that parse their own arguments (mcp, service, doctor,
  /// export) instead; they print CommandHelp for --help.
  int (*run)(const std::vector<std::string>& args) = nullptr;
  /// The words each argument takes, when they are few, for shell
  /// completion: space-separated, one argument after another separated by
  /// ";" ("install uninstall;claude-code codex").
  std::string_view arg_words;
  /// Its output may be long: paged on a terminal (pager.hpp).
  bool pages = false;
  /// When the arguments choose the method (origin forgotten [TMB_ID]): it,
  /// instead of `method`.
  std::string_view (*method_for)(const Invocation&) = nullptr;
};

/// The table, in the order `origin --help` lists it (origin_main.cpp).
std::span<const Command* const> Commands();
const Command* FindCommand(std::string_view name);

/// Parses the words after the command's name.  Throws UsageError.  Sets
/// *help when --help or -h came before `--` (nothing else is checked then).
Invocation Parse(const Command& cmd, const std::vector<std::string>& words, bool* help);

/// "usage: origin search WORDS... [--scope ...]", wrapped, ending in a newline.
std::string UsageLine(const Command& cmd);
/// `origin help NAME`: usage, details, every option with its meaning, examples.
std::string CommandHelp(const Command& cmd);
/// `origin --help`: every command and every option with the commands that
/// take it.
std::string GlobalHelp();

}  // namespace origin::client
