// SPDX-License-Identifier: MIT
#include "io/fd.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

using namespace origin;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/origin-io-test-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

TEST_SUITE("io") {
  TEST_CASE("io: ReadFileIfExists tells a missing file from one it cannot read") {
    TempDir d;
    CHECK_FALSE(ReadFileIfExists(d.path + "/none"));
    const std::string big(200000, 'x');
    WriteFileAtomic(d.path + "/f", big, 0640);
    CHECK(ReadFileIfExists(d.path + "/f") == big);
    CHECK(ReadFile(d.path + "/f") == big);
    // A directory opens but cannot be read: an error, not "no file".
    CHECK_THROWS_AS(ReadFileIfExists(d.path), std::system_error);
    CHECK_THROWS_AS(ReadFile(d.path + "/none"), std::system_error);
  }

  TEST_CASE("io: WriteFileAtomic replaces a file whole, with the mode asked for") {
    TempDir d;
    const std::string f = d.path + "/f";
    WriteFileAtomic(f, "one", 0600);
    WriteFileAtomic(f, "two", 0644);
    CHECK(ReadFile(f) == "two");
    struct stat st {};
    REQUIRE(::stat(f.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0644);
    CHECK_FALSE(std::filesystem::exists(f + ".origin-tmp"));
    // Into a folder that is not there: it throws, and leaves nothing behind.
    CHECK_THROWS_AS(WriteFileAtomic(d.path + "/no/f", "x", 0600), std::system_error);
    // Over a directory: the rename fails, and the temporary file goes.
    MakeDirs(d.path + "/dir", 0700);
    CHECK_THROWS_AS(WriteFileAtomic(d.path + "/dir", "x", 0600), std::system_error);
    CHECK_FALSE(std::filesystem::exists(d.path + "/dir.origin-tmp"));
  }

  TEST_CASE("io: SendAll reports a peer gone as EPIPE, without SIGPIPE") {
    ::signal(SIGPIPE, SIG_DFL);  // SIGPIPE would end the test
    int sv[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    UniqueFd a(sv[0]), b(sv[1]);
    CHECK(SendAll(a.get(), "hi"));
    b.Reset();
    CHECK_FALSE(SendAll(a.get(), "x"));
    CHECK(errno == EPIPE);
  }

  TEST_CASE("io: WriteAll writes everything to a stream, and reports a reader gone") {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    UniqueFd r(p[0]), w(p[1]);
    CHECK(WriteAll(w.get(), "hello"));
    char buf[16] = {};
    CHECK(::read(r.get(), buf, sizeof buf) == 5);
    CHECK(std::string(buf) == "hello");
    r.Reset();
    ::signal(SIGPIPE, SIG_IGN);
    CHECK_FALSE(WriteAll(w.get(), "x"));
    CHECK(errno == EPIPE);
  }

  TEST_CASE("io: UniqueFd closes what it owns, once") {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    {
      UniqueFd a(p[0]);
      UniqueFd b(std::move(a));
      CHECK_FALSE(a);
      CHECK(b.get() == p[0]);
    }
    CHECK(::fcntl(p[0], F_GETFD) == -1);
    UniqueFd keep(p[1]);
    int raw = keep.Release();
    CHECK(::fcntl(raw, F_GETFD) != -1);
    ::close(raw);
  }
}
