// SPDX-License-Identifier: MIT
#pragma once
// origin-mcp driven as an agent drives it, for the end-to-end tests: its
// stdin and stdout are pipes, each line one JSON-RPC message.

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "proto/protocol.hpp"
#include "tests/support/stdio_process.hpp"

namespace origin::test {

// origin-mcp as an agent runs it: stdin and stdout are pipes.
class Mcp {
 public:
  explicit Mcp(const std::map<std::string, std::string>& env) : proc_(Start(env)) {}
  void Send(const std::string& line) { REQUIRE(proc_.WriteLine(line)); }
  /// The next line on stdout (within 10 s), which must be one JSON-RPC message.
  rapidjson::Document Read() {
    auto line = proc_.ReadLine(10000);
    REQUIRE_MESSAGE(line.has_value(), "no answer from origin-mcp");
    rapidjson::Document d;
    d.Parse(line->c_str());
    REQUIRE_MESSAGE(!d.HasParseError(), "not JSON on stdout: " << *line);
    REQUIRE_MESSAGE(d.IsObject(), *line);
    REQUIRE_MESSAGE(d.HasMember("jsonrpc"), "not JSON-RPC on stdout: " << *line);
    CHECK(std::string(d["jsonrpc"].GetString()) == "2.0");
    return d;
  }
  /// `initialize` (id 1) as the agent `client` on protocol 2025-11-25,
  /// REQUIREd to answer.
  void Initialize(const std::string& client = "claude-code") {
    auto d = Call(1, "initialize",
                  R"({"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":")" +
                      client + R"(","version":"1"}})");
    REQUIRE(d.HasMember("result"));
  }
  rapidjson::Document Call(int id, const std::string& method, const std::string& params = "{}") {
    Send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")" + method +
         R"(","params":)" + params + "}");
    rapidjson::Document d = Read();
    REQUIRE(d.HasMember("id"));
    CHECK(d["id"].GetInt() == id);
    return d;
  }
  static rapidjson::Document Parsed(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    REQUIRE_FALSE(d.HasParseError());
    return d;
  }
  static bool HasNull(const rapidjson::Value& v) {
    if (v.IsNull()) return true;
    if (v.IsArray())
      for (const auto& x : v.GetArray())
        if (HasNull(x)) return true;
    if (v.IsObject())
      for (const auto& m : v.GetObject())
        if (HasNull(m.value)) return true;
    return false;
  }
  /// tools/call: the text of its one content block, and whether it is an error.
  std::pair<std::string, bool> Tool(int id, const std::string& name, const std::string& args) {
    auto [text, error, notice] = ToolWithNotice(id, name, args);
    CHECK_MESSAGE(notice.empty(), notice);
    return {text, error};
  }
  /// tools/call: the text of its first content block, whether it is an
  /// error, and the text of a second block (a notice), if any.
  std::tuple<std::string, bool, std::string> ToolWithNotice(int id, const std::string& name,
                                                            const std::string& args) {
    auto d = Call(id, "tools/call", R"({"name":")" + name + R"(","arguments":)" + args + "}");
    REQUIRE_MESSAGE(d.HasMember("result"), proto::ToJson(d));
    const auto& r = d["result"];
    REQUIRE(r["content"].Size() >= 1);
    REQUIRE(r["content"].Size() <= 2);
    const std::string notice =
        r["content"].Size() == 2 ? r["content"][1]["text"].GetString() : std::string();
    CHECK(std::string(r["content"][0]["type"].GetString()) == "text");
    const std::string text = r["content"][0]["text"].GetString();
    const bool error = r["isError"].GetBool();
    if (!error) {
      // No null anywhere; structuredContent (2025-06-18 and later) is the text's JSON.
      const rapidjson::Document answer = Parsed(text);
      CHECK_MESSAGE(!HasNull(answer), text);
      if (r.HasMember("structuredContent")) {
        const bool same = answer == r["structuredContent"];
        CHECK(same);
      }
    } else {
      CHECK_FALSE(r.HasMember("structuredContent"));
    }
    return {text, error, notice};
  }
  /// Closes stdin; returns the exit status and the seconds it took.
  std::pair<int, double> CloseAndWait() {
    auto t = std::chrono::steady_clock::now();
    int status = proc_.CloseAndWait();
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    // Whatever it wrote last must be JSON-RPC too.
    for (const std::string& line : proc_.RestOfOutput()) {
      rapidjson::Document d;
      d.Parse(line.c_str());
      CHECK_MESSAGE((!d.HasParseError() && d.IsObject() && d.HasMember("jsonrpc")), line);
    }
    return {status, took};
  }

 private:
  static StdioProcess Start(const std::map<std::string, std::string>& env) {
    const char* exe = std::getenv("ORIGIN_MCP");
    REQUIRE_MESSAGE(exe != nullptr, "ORIGIN_MCP is not set (run the tests through meson)");
    std::vector<std::string> envs = {"PATH=/usr/bin:/bin"};
    for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
    return StdioProcess({exe}, envs);
  }
  StdioProcess proc_;
};


}  // namespace origin::test
