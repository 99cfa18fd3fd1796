// SPDX-License-Identifier: MIT
#include "client/failure.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>

#include "client/render.hpp"
#include "proto/protocol.hpp"

namespace origin::client {

void PrintFailure(bool json, std::string_view code, const std::string& message, bool multiline) {
  if (json) {
    std::fprintf(stderr, "%s\n", proto::ErrorJson(code, message).c_str());
  } else {
    std::fprintf(stderr, "origin: %s\n", TerminalSafe(message, multiline).c_str());
  }
}

int Failure(bool json, std::string_view code, const std::string& message) {
  PrintFailure(json, code, message);
  return proto::ExitCodeFor(code);
}

bool WantsJson(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--json") return true;
  }
  return false;
}

std::optional<int> ParseOwn(const Command& cmd, const std::vector<std::string>& words,
                            Invocation* inv, const std::function<void(const Invocation&)>& check) {
  try {
    bool help = false;
    *inv = Parse(cmd, words, &help);
    if (help) {
      std::fputs(CommandHelp(cmd).c_str(), stdout);
      return 0;
    }
    if (check) check(*inv);
    return std::nullopt;
  } catch (const UsageError& e) {
    if (WantsJson(words)) {
      PrintFailure(true, "usage", e.what());
      return proto::kExitUsage;
    }
    std::fprintf(stderr, "origin: %s\n%s(origin help %s: its options and examples)\n", e.what(),
                 UsageLine(cmd).c_str(), std::string(cmd.name).c_str());
    return proto::kExitUsage;
  }
}

}  // namespace origin::client
