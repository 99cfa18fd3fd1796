// SPDX-License-Identifier: MIT
#include "client/generate.hpp"

#include <cstdio>
#include <string_view>

#include "client/command_table.hpp"
#include "client/service_units.hpp"
#include "origin_config.h"
#include "proto/protocol.hpp"

namespace origin::client {

namespace {

// The words of each argument of `c` (Command::arg_words).
std::vector<std::string> ArgWords(const Command& c) {
  std::vector<std::string> out;
  std::string_view w = c.arg_words;
  while (!w.empty()) {
    const std::size_t semi = w.find(';');
    out.emplace_back(w.substr(0, semi));
    if (semi == std::string_view::npos) break;
    w.remove_prefix(semi + 1);
  }
  return out;
}

std::string Replace(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// `s` inside single quotes for sh (bash, zsh).
std::string ShQuote(std::string_view s) {
  return "'" + Replace(std::string(s), "'", "'\\''") + "'";
}

// `s` inside single quotes for fish.
std::string FishQuote(std::string_view s) {
  return "'" + Replace(Replace(std::string(s), "\\", "\\\\"), "'", "\\'") + "'";
}

std::string Names() {
  std::string out;
  for (const Command* c : Commands()) out += (out.empty() ? "" : " ") + std::string(c->name);
  return out;
}

// roff: a backslash printed as itself, a dash as a minus (options), a line
// that would start with a control character made safe.
std::string Roff(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  return out;
}
// Help text as roff: a blank line starts a paragraph, and lines that start
// with a space (a table, an example) are kept as they are (no filling).
std::string RoffLines(std::string_view text) {
  std::string out;
  bool kept = false;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string line = Roff(text.substr(at, nl - at));
    const std::size_t first = line.find_first_not_of(' ');
    const bool indented = first != std::string::npos && first > 0;
    if (indented != kept) out += indented ? ".nf\n" : ".fi\n";
    kept = indented;
    if (first == std::string::npos)
      out += ".PP\n";
    else
      out += (line[0] == '.' || line[0] == '\'' ? "\\&" : "") + line + "\n";
    at = nl + 1;
  }
  if (kept) out += ".fi\n";
  return out;
}

}  // namespace

std::string BashCompletion() {
  std::string out =
      "# bash completion for origin(1); made by `origin __generate completion bash` from the\n"
      "# CLI's command table.\n"
      "_origin() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\" cmd=\"\" w i n=0 after_dashes=\"\"\n"
      "  (( COMP_CWORD > 0 )) && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      "  local commands=" + ShQuote(Names() + " help") + "\n"
      "  local opts=\"--help --version\" valued=\"\" args=()\n"
      "  # The command is the first word that is not an option or an option's value.\n"
      "  for (( i = 1; i < COMP_CWORD; i++ )); do\n"
      "    w=\"${COMP_WORDS[i]}\"\n"
      "    if [[ -z $cmd ]]; then\n"
      "      case \"$w\" in -*) ;; *) cmd=\"$w\"; break ;; esac\n"
      "    fi\n"
      "  done\n"
      "  case \"$cmd\" in\n";
  for (const Command* c : Commands()) {
    std::string opts = "--help", valued;
    for (const Option& o : c->options) {
      opts += " --" + std::string(o.name);
      if (!o.value.empty()) valued += " --" + std::string(o.name);
    }
    out += "    " + std::string(c->name) + ")\n      opts=" + ShQuote(opts) +
           "; valued=" + ShQuote(valued + " ") + "\n      args=(";
    for (const std::string& a : ArgWords(*c)) out += ShQuote(a) + " ";
    out += ") ;;\n";
  }
  out +=
      "    help) args=(\"$commands\") ;;\n"
      "  esac\n"
      "  # The value of an option that takes one.\n"
      "  if [[ -n $cmd && $prev == --* && $valued == *\" $prev \"* ]]; then\n"
      "    case \"$cmd $prev\" in\n";
  for (const Command* c : Commands())
    for (const Option& o : c->options)
      if (!o.choices.empty())
        out += "      " + ShQuote(std::string(c->name) + " --" + std::string(o.name)) +
               ") COMPREPLY=($(compgen -W " + ShQuote(o.choices) + " -- \"$cur\")) ;;\n";
  out +=
      "      *) COMPREPLY=() ;;\n"
      "    esac\n"
      "    return 0\n"
      "  fi\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
      "    return 0\n"
      "  fi\n"
      "  if [[ -z $cmd ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
      "    return 0\n"
      "  fi\n"
      "  # Which argument this is: the words after the command that are neither\n"
      "  # options nor their values.\n"
      "  for (( i = i + 1; i < COMP_CWORD; i++ )); do\n"
      "    w=\"${COMP_WORDS[i]}\"\n"
      "    if [[ -n $after_dashes ]]; then n=$((n + 1)); continue; fi\n"
      "    case \"$w\" in\n"
      "      --) after_dashes=1 ;;\n"
      "      --*=*) ;;\n"
      "      -*) [[ $valued == *\" $w \"* ]] && i=$((i + 1)) ;;\n"
      "      *) n=$((n + 1)) ;;\n"
      "    esac\n"
      "  done\n"
      "  if (( n < ${#args[@]} )); then\n"
      "    COMPREPLY=($(compgen -W \"${args[n]}\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=()\n"
      "  fi\n"
      "  return 0\n"
      "}\n"
      "complete -F _origin origin\n";
  return out;
}

std::string ZshCompletion() {
  auto spec = [](std::string_view s) {
    // Inside _arguments' brackets and descriptions: ] and : escaped.
    return Replace(Replace(Replace(std::string(s), "\\", "\\\\"), "]", "\\]"), ":", "\\:");
  };
  std::string out =
      "#compdef origin\n"
      "# zsh completion for origin(1); made by `origin __generate completion zsh` from the\n"
      "# CLI's command table.\n"
      "_origin() {\n"
      "  local -a commands\n"
      "  commands=(\n";
  // _describe: the first colon ends the name; the description is as it is.
  for (const Command* c : Commands())
    out += "    " + ShQuote(std::string(c->name) + ":" + std::string(c->summary)) + "\n";
  out += "    'help:a command'\\''s usage, options and examples'\n  )\n";
  out +=
      "  if (( CURRENT == 2 )); then\n"
      "    _describe -t commands 'origin command' commands\n"
      "    return\n"
      "  fi\n"
      "  local cmd=\"${words[2]}\"\n"
      "  shift words\n"
      "  (( CURRENT-- ))\n"
      "  case \"$cmd\" in\n";
  for (const Command* c : Commands()) {
    out += "    " + std::string(c->name) + ")\n      _arguments -s \\\n";
    out += "        '--help[this command'\\''s usage, options and examples]' \\\n";
    for (const Option& o : c->options) {
      std::string s = "--" + std::string(o.name);
      if (o.value.empty()) {
        s += "[" + spec(o.help) + "]";
      } else {
        s += "=[" + spec(o.help) + "]:" + spec(o.value) + ":";
        if (!o.choices.empty()) s += "(" + std::string(o.choices) + ")";
      }
      out += "        " + ShQuote(s) + " \\\n";
    }
    const std::vector<std::string> words = ArgWords(*c);
    for (std::size_t i = 0; i < words.size(); ++i)
      out += "        " + ShQuote(std::to_string(i + 1) + ":argument:(" + words[i] + ")") + " \\\n";
    if (words.size() < c->max_args) out += "        '*:argument:' \\\n";
    out += "        && return\n      ;;\n";
  }
  out +=
      "    help)\n"
      "      _describe -t commands 'origin command' commands\n"
      "      ;;\n"
      "  esac\n"
      "}\n"
      "_origin \"$@\"\n";
  return out;
}

std::string FishCompletion() {
  std::string out =
      "# fish completion for origin(1); made by `origin __generate completion fish` from the\n"
      "# CLI's command table.\n"
      "complete -c origin -f\n"
      "complete -c origin -n __fish_use_subcommand -l help -d 'usage: every command and option'\n"
      "complete -c origin -n __fish_use_subcommand -l version -d 'the version of origin'\n"
      "complete -c origin -n __fish_use_subcommand -a help -d 'a command\\'s usage, options and "
      "examples'\n"
      "complete -c origin -n '__fish_seen_subcommand_from help' -a " +
      FishQuote(Names()) + "\n";
  for (const Command* c : Commands()) {
    const std::string name(c->name);
    const std::string when = FishQuote("__fish_seen_subcommand_from " + name);
    out += "complete -c origin -n __fish_use_subcommand -a " + name + " -d " +
           FishQuote(c->summary) + "\n";
    out += "complete -c origin -n " + when + " -l help -d 'usage, options and examples'\n";
    for (const Option& o : c->options) {
      out += "complete -c origin -n " + when + " -l " + std::string(o.name);
      if (!o.value.empty()) out += " -r";
      if (!o.choices.empty()) out += " -a " + FishQuote(o.choices);
      out += " -d " + FishQuote(o.help) + "\n";
    }
    const std::vector<std::string> words = ArgWords(*c);
    if (!words.empty())
      out += "complete -c origin -n " + when + " -a " + FishQuote(words[0]) + "\n";
  }
  return out;
}

std::string ManPage() {
  std::string out =
      ".\\\" origin(1): made by `origin __generate man` from the CLI's command table.\n"
      ".TH ORIGIN 1 \"\" \"origin " ORIGIN_VERSION "\" \"User Commands\"\n"
      ".SH NAME\n"
      "origin \\- one shared, inspectable memory for your AI coding agents\n"
      ".SH SYNOPSIS\n"
      ".B origin\n"
      ".I command\n"
      "[\\fIarguments\\fR] [\\fIoptions\\fR]\n"
      ".br\n"
      ".B origin help\n"
      ".I command\n"
      ".SH DESCRIPTION\n"
      "Origin keeps what your AI coding agents (Claude Code, Codex, Cursor, ZCode, Grok Build)\n"
      "wrote in their logs, and what you and they remember, in one store that every agent\n"
      "reads through MCP.\n"
      ".B origin\n"
      "is its command line: it asks the daemon,\n"
      ".BR originsd ,\n"
      "over a Unix socket, starting it when none answers; only the daemon opens the store.\n"
      ".PP\n"
      "Options take their value as \\fB\\-\\-opt\\fR \\fIVALUE\\fR or "
      "\\fB\\-\\-opt\\fR=\\fIVALUE\\fR;\n"
      ".B \\-\\-\n"
      "ends the options.  DATE is YYYY\\-MM\\-DD[THH:MM[:SS]], local, or with Z or +HH:MM.\n"
      ".SH COMMANDS\n";
  for (const Command* c : Commands()) {
    out += ".SS \"" + Roff(std::string("origin ") + std::string(c->name)) +
           (c->args.empty() ? "" : " " + Roff(c->args)) + "\"\n";
    out += Roff(c->summary) + ".\n";
    if (!c->details.empty()) out += ".PP\n" + RoffLines(c->details);
    for (const Option& o : c->options) {
      out += ".TP\n.B \\-\\-" + Roff(o.name) +
             (o.value.empty() ? "" : " \\fI" + Roff(o.value) + "\\fR") + "\n" + Roff(o.help) +
             "\n";
    }
    if (!c->examples.empty()) out += ".PP\nExamples:\n" + RoffLines(c->examples);
  }
  out +=
      ".SH OPTIONS\n"
      ".TP\n.B \\-\\-help\n"
      "Every command and option; after a command, that command's usage, options and examples.\n"
      ".TP\n.B \\-\\-version\nThe version of origin.\n"
      ".SH ENVIRONMENT\n"
      ".TP\n.B ORIGIN_HOME\nThe store (default ~/.origin).\n"
      ".TP\n.B ORIGIN_NO_AUTOSTART\nWhen 1, origin does not start originsd when none answers.\n"
      ".TP\n.B CLAUDE_CONFIG_DIR\\fR, \\fBCODEX_HOME\\fR, \\fBZCODE_HOME\\fR, \\fBGROK_HOME\n"
      "Where the agents keep their logs and settings, when not in their default places.\n"
      ".SH FILES\n"
      ".TP\n.I ~/.origin\nThe store: origin.db, index.db, raw/ (the mirrors of the agents' logs),\n"
      "run/ (the daemon's socket, lock and log).\n"
      ".TP\n.I ~/.claude.json\\fR, \\fI~/.codex/config.toml\\fR, \\fI~/.cursor/mcp.json\n"
      "Where origin mcp install registers origin\\-mcp.\n"
      ".SH EXIT STATUS\n"
      ".TP\n.B 0\nSuccess.\n"
      ".TP\n.B 1\nFailed (sync: a source could not be read or stored; doctor: a problem was found).\n"
      ".TP\n.B 2\nUsage: a bad command line or argument.\n"
      ".TP\n.B 3\nNo daemon could be reached or started.\n"
      ".TP\n.B 4\nNot found.\n"
      ".TP\n.B 5\nstatus: something needs you (see its list).\n"
      ".SH SEE ALSO\n"
      ".BR originsd (1),\n"
      ".BR origin\\-mcp (1)\n";
  return out;
}

int GenerateCommand(const std::vector<std::string>& args) {
  std::string out;
  if (args.size() == 2 && args[0] == "completion" && args[1] == "bash")
    out = BashCompletion();
  else if (args.size() == 2 && args[0] == "completion" && args[1] == "zsh")
    out = ZshCompletion();
  else if (args.size() == 2 && args[0] == "completion" && args[1] == "fish")
    out = FishCompletion();
  else if (args.size() == 1 && args[0] == "man")
    out = ManPage();
  else if (args.size() == 2 && args[0] == "systemd-unit" && !args[1].empty() && args[1][0] == '/')
    out = PackagedUnitText(args[1]);
  if (out.empty()) {
    std::fputs("usage: origin __generate completion bash|zsh|fish | origin __generate man | "
               "origin __generate systemd-unit /ABSOLUTE/PATH/TO/originsd\n",
               stderr);
    return proto::kExitUsage;
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace origin::client
