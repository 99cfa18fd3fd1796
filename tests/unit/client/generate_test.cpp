// SPDX-License-Identifier: MIT
// Shell completion and the man page are made from the command table: each
// lists every command, every option of each, and the words and values the
// table gives for completion.
#include "client/generate.hpp"

#include <doctest/doctest.h>

#include <string>

#include "client/command_table.hpp"
#include "client/service_units.hpp"

using namespace origin::client;

namespace {

bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string RoffDashes(std::string s) {
  std::string out;
  for (char c : s) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

}  // namespace

TEST_SUITE("client") {
  TEST_CASE("generate: completion for bash, zsh and fish, and the man page, list every command "
            "and option") {
    const std::string bash = BashCompletion(), zsh = ZshCompletion(), fish = FishCompletion(),
                      man = ManPage();
    CHECK(Has(bash, "complete -F _origin origin"));
    CHECK(zsh.rfind("#compdef origin\n", 0) == 0);
    CHECK(Has(fish, "complete -c origin"));
    CHECK(Has(man, ".TH ORIGIN 1"));
    std::size_t commands = 0;
    for (const Command* c : Commands()) {
      ++commands;
      const std::string name(c->name);
      CAPTURE(name);
      CHECK(Has(bash, "\n    " + name + ")\n"));
      CHECK(Has(zsh, "\n    '" + name + ":"));
      CHECK(Has(zsh, "\n    " + name + ")\n"));
      CHECK(Has(fish, "-n __fish_use_subcommand -a " + name + " "));
      CHECK(Has(man, ".SS \"origin " + RoffDashes(name)));
      for (const Option& o : c->options) {
        const std::string opt = "--" + std::string(o.name);
        CAPTURE(opt);
        // In the command's own list, in each.
        const std::size_t at = bash.find("\n    " + name + ")\n");
        CHECK(Has(bash.substr(at, bash.find(";;", at) - at), " " + opt));
        const std::size_t zat = zsh.find("\n    " + name + ")\n");
        CHECK(Has(zsh.substr(zat, zsh.find(";;", zat) - zat), "'" + opt));
        CHECK(Has(fish, "'__fish_seen_subcommand_from " + name + "' -l " + std::string(o.name)));
        const std::size_t mat = man.find(".SS \"origin " + RoffDashes(name));
        const std::size_t mend = man.find(".SS", mat + 1);
        CHECK(Has(man.substr(mat, mend - mat), ".B " + RoffDashes(opt)));
        if (!o.choices.empty()) {
          CHECK(Has(bash, std::string(o.choices)));
          CHECK(Has(zsh, "(" + std::string(o.choices) + ")"));
          CHECK(Has(fish, "-a '" + std::string(o.choices) + "'"));
        }
      }
      if (!c->arg_words.empty()) {
        const std::string first(c->arg_words.substr(0, c->arg_words.find(';')));
        CHECK(Has(bash, "'" + first + "'"));
        CHECK(Has(zsh, "1:argument:(" + first + ")"));
        CHECK(Has(fish, "-a '" + first + "'"));
      }
    }
    CHECK(commands >= 17);  // the setting-up commands are in the table too
    CHECK(Has(bash, "'install uninstall status'"));
    CHECK(Has(bash, "'claude-code codex cursor all'"));
    // Nothing in a help text can break out of its quotes.
    CHECK_FALSE(Has(fish, "'a command's"));
  }

  TEST_CASE("generate: the packaged systemd unit runs the originsd it is given, for the store "
            "~/.origin of whoever enables it") {
    const std::string unit = PackagedUnitText("/usr/bin/originsd");
    CHECK(Has(unit, "\nExecStart=\"/usr/bin/originsd\" --foreground --home \"%h/.origin\"\n"));
    CHECK(Has(unit, "\nType=notify\n"));
    CHECK(Has(unit, "\nWantedBy=default.target\n"));
    CHECK_FALSE(Has(unit, "{{"));
    // A % in the daemon's path is not a specifier.
    CHECK(Has(PackagedUnitText("/opt/100%/originsd"), "ExecStart=\"/opt/100%%/originsd\" "));
    CHECK(GenerateCommand({"systemd-unit"}) == 2);
    CHECK(GenerateCommand({"systemd-unit", "originsd"}) == 2);  // not an absolute path
  }

  TEST_CASE("generate: __generate takes only what it knows") {
    CHECK(GenerateCommand({"completion"}) == 2);
    CHECK(GenerateCommand({"completion", "tcsh"}) == 2);
    CHECK(GenerateCommand({"man", "extra"}) == 2);
    CHECK(GenerateCommand({}) == 2);
  }
}
