// SPDX-License-Identifier: MIT
#include "core/util/text.hpp"

#include <doctest/doctest.h>

using namespace origin;

TEST_SUITE("text") {
  TEST_CASE("text: invalid UTF-8 is replaced, valid text kept byte for byte") {
    CHECK(SanitizeUtf8("plain ascii") == "plain ascii");
    CHECK(SanitizeUtf8("部署 ok") == "部署 ok");
    CHECK(SanitizeUtf8("a\xff"
                       "b") ==
          "a\xEF\xBF\xBD"
          "b");
    CHECK(SanitizeUtf8("a\xE4\xB8") == "a\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated sequence
    CHECK(SanitizeUtf8(std::string("a\0b", 3)) == "ab");
    CHECK(SanitizeUtf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  }

  TEST_CASE("text: ValidUtf8 is true exactly for what SanitizeUtf8 leaves as it is") {
    for (std::string s :
         {std::string("plain ascii, long enough to be read by words"),
          std::string("部署 ok \xEF\xBF\xBD"), std::string(""), std::string("a\xff"),
          std::string("a\xE4\xB8"), std::string("a\0b long enough to be read by words", 35),
          std::string("\xED\xA0\x80"), std::string("\xC0\xAF")}) {
      CAPTURE(s);
      CHECK(ValidUtf8(s) == (SanitizeUtf8(s) == s));
    }
    CHECK(ValidUtf8("部署"));
    CHECK_FALSE(ValidUtf8("\xff\xfe"));
  }

  TEST_CASE("text: truncation counts characters, not bytes") {
    CHECK(TruncateChars("部署到生产", 2) == "部署");
    CHECK(TruncateChars("abc", 10) == "abc");
    CHECK(CountChars("部署a") == 3);
  }

  TEST_CASE("text: CJK tokens are every letter and every adjacent pair") {
    CHECK(CjkTokens("hello") == "");
    CHECK(CjkTokens("部署") == "部 部署 署");
    CHECK(CjkTokens("部署到 x 库") == "部 部署 署 署到 到 库");
    CHECK(CjkTokens("ひらがな") == "ひ ひら ら らが が がな な");
    CHECK(CjkTokens("한국어") == "한 한국 국 국어 어");
    CHECK(CjkTokens("5号") == "号");
  }

  TEST_CASE("text: ISO 8601 timestamps parse to UTC milliseconds") {
    CHECK(ParseIsoMs("1970-01-01T00:00:00Z") == 0);
    CHECK(ParseIsoMs("2025-11-23T04:53:42.362Z") == 1763873622362);
    CHECK(ParseIsoMs("2025-11-23T12:53:42.362+08:00") == 1763873622362);
    CHECK(ParseIsoMs("2025-11-23T04:53:42.362123Z") == 1763873622362);
    CHECK(ParseIsoMs("2025-11-23T04:53:42") == 1763873622000);
    CHECK_FALSE(ParseIsoMs("yesterday"));
    CHECK_FALSE(ParseIsoMs("2025-13-01T00:00:00Z"));
    CHECK(FormatIsoUtc(1763873622362) == "2025-11-23T04:53:42.362Z");
  }

  TEST_CASE("text: the project is the last segment of cwd") {
    CHECK(LastPathSegment("/home/dev/app") == "app");
    CHECK(LastPathSegment("/home/dev/app/") == "app");
    CHECK(LastPathSegment("C:\\Users\\dev\\proj") == "proj");
    CHECK(LastPathSegment("") == "");
  }

  TEST_CASE("text: JSON nesting depth is measured outside strings") {
    CHECK(JsonDepthWithin("{\"a\":[1,{\"b\":2}]}", 3));
    CHECK_FALSE(JsonDepthWithin("{\"a\":[1,{\"b\":2}]}", 2));
    CHECK(JsonDepthWithin("{\"a\":\"[[[[[[\"}", 1));
    CHECK(JsonDepthWithin("{\"a\":\"\\\"[[[[\"}", 1));  // an escaped quote does not end the string
    CHECK_FALSE(JsonDepthWithin(std::string(100000, '['), 256));
    // An escaped backslash does not escape the quote after it; three do.
    CHECK_FALSE(JsonDepthWithin("[\"\\\\\"[[]]]", 2));
    CHECK(JsonDepthWithin("[\"\\\\\\\"[[\"]", 1));
  }

  // The quotes are found by memchr and the backslashes before each
  // counted: the same answer as reading every character, escapes skipped.
  TEST_CASE("text: JSON nesting depth agrees with a character-by-character reading") {
    auto reference = [](std::string_view json, int max_depth) {
      int depth = 0;
      bool in_string = false;
      for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
          if (c == '\\')
            ++i;
          else if (c == '"')
            in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if (c == '[' || c == '{') {
          if (++depth > max_depth) return false;
        } else if (c == ']' || c == '}') {
          --depth;
        }
      }
      return true;
    };
    std::uint64_t seed = 7;
    auto next = [&seed] {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<unsigned>(seed >> 33);
    };
    const char alphabet[] = {'"', '\\', '[', '{', ']', '}', 'a'};
    for (int n = 0; n < 20000; ++n) {
      std::string json(next() % 40, ' ');
      for (char& c : json) c = alphabet[next() % sizeof alphabet];
      const int max_depth = static_cast<int>(next() % 4);
      CHECK_MESSAGE(JsonDepthWithin(json, max_depth) == reference(json, max_depth), json);
    }
  }
}
