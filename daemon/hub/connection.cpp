// SPDX-License-Identifier: MIT
#include "daemon/hub/connection.hpp"

#include <curl/curl.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "daemon/http/body_coding.hpp"
#include "daemon/hub/wire.hpp"
#include "daemon/rpc_json.hpp"
#include "io/fd.hpp"

namespace origin::hub {

namespace {

std::string JsonPath(const std::string& home) { return home + "/hub.json"; }

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

std::string CanonicalUrl(std::string_view url, bool user_allowed) {
  const std::string given(url);
  for (char c : given)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      throw std::invalid_argument("the hub's URL has no spaces or control characters");
  const std::size_t scheme = given.find("://");
  if (scheme == std::string::npos ||
      (given.compare(0, scheme, "http") != 0 && given.compare(0, scheme, "https") != 0))
    throw std::invalid_argument("the hub's URL starts with http:// or https://: " + given);
  if (given.find_first_of("?#") != std::string::npos)
    throw std::invalid_argument("the hub's URL has no query or fragment: " + given);
  std::string u = given;
  while (u.size() > scheme + 3 && u.back() == '/') u.pop_back();
  // The authority: [user@]host[:port], the host maybe an IPv6 address in
  // brackets.
  const std::size_t from = scheme + 3;
  std::string authority = u.substr(from, u.find('/', from) - from);
  if (const std::size_t at = authority.rfind('@'); at != std::string::npos) {
    if (!user_allowed)
      throw std::invalid_argument(
          "the hub's URL holds no user or password (the token goes with --token): " + given);
    authority.erase(0, at + 1);
  }
  std::size_t host_end = std::min(authority.find(':'), authority.size());  // one past it
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    host_end = close == std::string::npos || close < 2 ? 0 : close + 1;
  }
  if (host_end == 0) throw std::invalid_argument("the hub's URL names a host: " + given);
  if (host_end < authority.size()) {
    // An empty port is none (RFC 3986).
    const std::string port = authority.substr(host_end + 1);
    const bool digits =
        port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
    if (authority[host_end] != ':' ||
        (!port.empty() && (!digits || std::stoi(port) < 1 || std::stoi(port) > 65535)))
      throw std::invalid_argument("the hub's URL has a port of 1 to 65535 after its host: " +
                                  given);
  }
  return u;
}

bool HubFromEnv() { return !Env("ORIGIN_HUB_URL").empty() || !Env("ORIGIN_HUB_TOKEN").empty(); }

std::optional<Connection> LoadConnection(const std::string& home) {
  std::optional<Connection> c;
  if (std::optional<std::string> text = ReadFileIfExists(JsonPath(home))) {
    rapidjson::Document d;
    d.Parse(text->data(), text->size());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("url") || !d["url"].IsString() ||
        !d.HasMember("token") || !d["token"].IsString())
      throw std::runtime_error(JsonPath(home) +
                               " is not {\"url\": ..., \"token\": ...}: origin hub connect "
                               "writes it again");
    c = Connection{d["url"].GetString(), d["token"].GetString(), "", false};
    if (d.HasMember("ca_file") && d["ca_file"].IsString()) c->ca_file = d["ca_file"].GetString();
  }
  const std::string url = Env("ORIGIN_HUB_URL"), token = Env("ORIGIN_HUB_TOKEN");
  if (!url.empty() || !token.empty()) {
    if (!c) c = Connection{};
    if (!url.empty()) c->url = url;
    if (!token.empty()) c->token = token;
    c->from_env = true;
  }
  if (c) {
    if (c->url.empty() || c->token.empty())
      throw std::runtime_error("a hub needs both its URL and a token (ORIGIN_HUB_URL and "
                               "ORIGIN_HUB_TOKEN, or origin hub connect)");
    try {
      c->url = CanonicalUrl(c->url);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
  }
  return c;
}

void SaveConnection(const std::string& home, const Connection& c) {
  const std::string json = rpc::Json([&](rpc::Writer& w) {
    w.StartObject();
    w.Key("url");
    w.String(c.url);
    w.Key("token");
    w.String(c.token);
    if (!c.ca_file.empty()) {
      w.Key("ca_file");
      w.String(c.ca_file);
    }
    w.EndObject();
  });
  WriteFileAtomic(JsonPath(home), json + "\n", 0600);
}

bool RemoveConnection(const std::string& home) {
  if (::unlink(JsonPath(home).c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  throw std::runtime_error("cannot remove " + JsonPath(home) + ": " + std::strerror(errno));
}

struct Http::Impl {
  Connection conn;
  std::string device;
  long timeout_ms;
  CURL* curl = nullptr;
  std::atomic<bool> aborted{false};

  ~Impl() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }

  static size_t Collect(char* data, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
  }
  static int Progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<Impl*>(self)->aborted.load() ? 1 : 0;
  }

  // A GET without `body`; a POST of `body`, encoded by `coding` (none
  // when null).
  Response Run(const std::string& target, const std::string* body, const char* coding,
               const std::vector<std::string>& extra) {
    Response out;
    if (aborted.load()) {
      out.error = "stopped";
      return out;
    }
    if (curl == nullptr) curl = curl_easy_init();
    if (curl == nullptr) {
      out.error = "libcurl could not start";
      return out;
    }
    curl_easy_reset(curl);
    const std::string url = conn.url + target;
    curl_slist* headers = nullptr;
    const std::string auth = "Authorization: Bearer " + conn.token;
    const std::string dev = "X-Origin-Device: " + device;
    headers = curl_slist_append(headers, auth.c_str());
    headers = curl_slist_append(headers, dev.c_str());
    if (extra.empty()) headers = curl_slist_append(headers, "Accept: application/json");
    for (const std::string& h : extra) headers = curl_slist_append(headers, h.c_str());
    if (body != nullptr) {
      headers = curl_slist_append(headers, "Content-Type: application/json");
      if (coding != nullptr)
        headers = curl_slist_append(headers, (std::string("Content-Encoding: ") + coding).c_str());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
    }
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Impl::Collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &Impl::Progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, this);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 10000L));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    // Our own hub only: no redirects to elsewhere, no proxy from the
    // environment unless the user set one for it (libcurl reads
    // https_proxy; that is the user's choice).
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "originsd");
    if (!conn.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, conn.ca_file.c_str());
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    const CURLcode rc = curl_easy_perform(curl);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
      out.error = aborted.load() ? "stopped" : (error[0] != 0 ? error : curl_easy_strerror(rc));
      out.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
      out.body.clear();
      return out;
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
    return out;
  }
};

namespace {
std::once_flag g_curl_init;
}

Http::Http(Connection c, std::string device, long timeout_ms) : impl_(std::make_unique<Impl>()) {
  std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  impl_->conn = std::move(c);
  impl_->device = std::move(device);
  impl_->timeout_ms = timeout_ms;
}

Http::~Http() = default;

Response Http::Get(const std::string& target) { return impl_->Run(target, nullptr, nullptr, {}); }

// zstd's fastest regular level, or zlib's: the bodies are mostly base64 of
// log text.  On 64 MiB of it, zstd level 1 takes a sixth of the CPU gzip
// level 1 does and makes 0.79 of its bytes, and the hub reads it in a
// quarter of the time (docs/performance.md): a device's first sync of a big
// store is otherwise bound by the coding.
Http::Encoded Http::Encode(std::string_view json) const {
  if (gzip_only_.load(std::memory_order_relaxed)) return {http::Gzip(json, 1), false};
  return {http::Zstd(json, 1), true};
}

Response Http::Post(const std::string& target, std::string_view json) {
  return Post(target, Encode(json));
}

Response Http::Post(const std::string& target, const Encoded& body) {
  Response r = impl_->Run(target, &body.bytes, body.zstd ? "zstd" : "gzip", {});
  if (!body.zstd || !r.error.empty() || r.status != 415) return r;
  // A hub that takes gzip only: this body again, and every later one, so.
  std::string json;
  if (http::Unzstd(body.bytes, SIZE_MAX, &json) != http::DecodeStatus::kOk) return r;
  gzip_only_.store(true, std::memory_order_relaxed);
  const std::string gz = http::Gzip(json, 1);
  return impl_->Run(target, &gz, "gzip", {});
}

Response Http::PostJson(const std::string& target, std::string_view json,
                        const std::vector<std::string>& headers) {
  const std::string body(json);
  return impl_->Run(target, &body, nullptr, headers);
}

void Http::SetTimeout(long ms) { impl_->timeout_ms = ms; }

void Http::Abort() { impl_->aborted.store(true); }

rapidjson::Document ParseBody(const Response& r) {
  rapidjson::Document d;
  d.Parse(r.body.data(), r.body.size());
  return d;
}

namespace {

// What to do about the answer `status`, or the transfer's `error`, said
// after what went wrong.
std::string Remedy(long status, const std::string& error) {
  if (error.find("certificate") != std::string::npos)
    return " (a certificate of your own: origin hub connect URL --token T --ca-file FILE)";
  if (error.find("wrong version number") != std::string::npos)
    return " (an https URL to a server that speaks http: the hub speaks plain http, and https "
           "is a reverse proxy's in front of it)";
  if (status == 401)
    return " (a new token: origin token create NAME on the hub, NAME this device's, after "
           "origin token revoke NAME if it still has one, then origin hub connect URL --token "
           "NEW here)";
  if (status == 404)
    return " (is the URL the hub's own, as origin serve prints it, without /mcp or another "
           "path of its API?)";
  return "";
}

}  // namespace

rapidjson::Document Expect(const Response& r, long status, const std::string& what) {
  if (!r.error.empty())
    throw Stopped("the hub could not be reached (" + what + "): " + r.error + Remedy(0, r.error));
  rapidjson::Document d = ParseBody(r);
  const bool ours = !d.HasParseError() && d.IsObject();
  if (r.status != status) {
    std::string why;
    if (ours && d.HasMember("error") && d["error"].IsString())
      why = std::string(": ") + d["error"].GetString();
    throw Stopped("the hub answered " + std::to_string(r.status) + " to " + what + why +
                  Remedy(r.status, ""));
  }
  if (!ours)
    throw Stopped("the hub's answer to " + what +
                  " is not a JSON object: is the URL an Origin hub's, as origin serve prints it?");
  return d;
}

std::int64_t IntOf(const rapidjson::Value& d, const char* name) {
  const rapidjson::Value* v = hub_wire::Member(d, name);
  if (v == nullptr || !v->IsInt64()) throw Stopped(std::string("the hub's answer has no ") + name);
  return v->GetInt64();
}

}  // namespace origin::hub
