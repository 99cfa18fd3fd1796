// SPDX-License-Identifier: MIT
// A hub behind a real TLS reverse proxy (issue 17; the README's "Run a
// hub"): Debian's nginx, started by the test with the README's proxy
// settings and a certificate made for the test, in front of a hub that
// speaks plain HTTP.  A device connects over https, trusting that
// certificate with --ca-file, and syncs; without it, the connection is
// refused for the certificate, and nothing is saved.

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/e2e/hub_fixture.hpp"
#include "tests/support/stdio_process.hpp"

namespace origin::test {

namespace {

const char kNginx[] = "/usr/sbin/nginx";

// A TCP port nothing listens on now.
int FreePort() {
  int port = 0;
  const int fd = ListenTcp(&port);
  REQUIRE(fd >= 0);
  ::close(fd);
  return port;
}

// nginx's configuration: the README's server block, on 127.0.0.1:`port`,
// all its files under `dir`, one process in the foreground.
std::string NginxConf(const std::string& dir, int port, int hub_port) {
  std::string conf = "daemon off;\nmaster_process off;\npid " + dir + "/nginx.pid;\nerror_log " +
                     dir + "/error.log;\nevents { worker_connections 64; }\nhttp {\n";
  for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    conf += std::string("  ") + temp + "_temp_path " + dir + "/" + temp + ";\n";
  conf += "  access_log " + dir + "/access.log;\n"
          "  server {\n"
          "    listen 127.0.0.1:" + std::to_string(port) + " ssl;\n"
          "    server_name localhost;\n"
          "    ssl_certificate     " + dir + "/cert.pem;\n"
          "    ssl_certificate_key " + dir + "/key.pem;\n"
          "    client_max_body_size 25m;\n"
          "    location / {\n"
          "        proxy_pass http://127.0.0.1:" + std::to_string(hub_port) + ";\n"
          "        proxy_set_header Host $host;\n"
          "        proxy_read_timeout 60s;\n"
          "    }\n"
          "  }\n"
          "}\n";
  return conf;
}

}  // namespace

TEST_SUITE("hub") {

TEST_CASE("hub over TLS: a device connects to its hub through nginx over https and syncs") {
  REQUIRE_MESSAGE(std::filesystem::exists(kNginx),
                  "nginx is not installed: packaging/test.sh installs it (packaging/deps.sh nginx)");
  DaemonFixture hub;
  const int hub_port = StartHub(hub);
  const std::string token = NewToken(hub, "laptop");
  const std::string reader = NewToken(hub, "ci");

  // A certificate for localhost and 127.0.0.1, made here.
  ScopedTempDir tls;
  RunResult made = Run({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=localhost", "-addext",
                        "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", tls / "key.pem",
                        "-out", tls / "cert.pem"},
                       {{"PATH", "/usr/bin:/bin"}});
  REQUIRE_MESSAGE(made.status == 0, made.err);
  const int port = FreePort();
  WriteFile(tls / "nginx.conf", NginxConf(tls.path(), port, hub_port));
  StdioProcess nginx({kNginx, "-p", tls.path(), "-c", tls / "nginx.conf"}, {"PATH=/usr/bin:/bin"});
  const bool listening = hub.WaitFor([&] {
    const int fd = ConnectTcp(port);
    if (fd >= 0) ::close(fd);
    return fd >= 0;
  });
  REQUIRE_MESSAGE(listening, (Exists(tls / "error.log") ? ReadAll(tls / "error.log") : "nginx did not start"));
  const std::string url = "https://localhost:" + std::to_string(port);

  DaemonFixture laptop;
  laptop.env()["ORIGIN_HUB_SYNC_MS"] = "0";
  StartDevice(laptop, "laptop", "about lighthouses");

  // The system does not trust the certificate: refused, saying why, and
  // nothing saved.
  RunResult untrusted = laptop.Cli({"hub", "connect", url, "--token", token});
  CHECK(untrusted.status != 0);
  CHECK_MESSAGE(untrusted.err.find("certificate") != std::string::npos, untrusted.err);
  CHECK_MESSAGE(untrusted.err.find("--ca-file") != std::string::npos, untrusted.err);
  CHECK_FALSE(std::filesystem::exists(laptop.home() + "/hub.json"));
  // A CA file that is not there: refused before the daemon is asked.
  RunResult missing = laptop.Cli({"hub", "connect", url, "--token", token, "--ca-file",
                                  tls / "nope.pem"});
  CHECK(missing.status == 2);
  CHECK(missing.err.find("nope.pem") != std::string::npos);

  RunResult connected =
      laptop.Cli({"hub", "connect", url, "--token", token, "--ca-file", tls / "cert.pem"});
  REQUIRE_MESSAGE(connected.status == 0, connected.err);
  CHECK(ReadAll(laptop.home() + "/hub.json").find(tls / "cert.pem") != std::string::npos);
  Sync(laptop);  // after the first sync, which connect started

  // What the device sent is on the hub, found through its /mcp over https
  // too (the device's merged search asks it there).
  const std::string search =
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"lighthouses"}}})";
  HttpReply found = Http(hub_port, "POST", "/mcp", McpHeaders(reader), search);
  REQUIRE(found.status == 200);
  CHECK(found.body.find("laptop said line 2") != std::string::npos);
  RunResult status = laptop.Cli({"hub", "status", "--json"});
  CHECK_MESSAGE(status.status == 0, status.out);
  CHECK(Json(status.out)["last_error"].IsNull());
  // The sync went through nginx.
  CHECK(ReadAll(tls / "access.log").find("POST /v1/ingest") != std::string::npos);

  laptop.Stop();
  hub.Stop();
}

}  // TEST_SUITE

}  // namespace origin::test
