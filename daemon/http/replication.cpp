// SPDX-License-Identifier: MIT
// The hub's replication API (spec: Personal hub, Replication and HTTP
// interface): what a device's token may read and push under /v1/.
//   GET  /v1/device    {device, hub}: the token's device, the hub's name
//   GET  /v1/cursors   {device, cursors}: where each of its files stands
//   POST /v1/ingest    one chunk of one of its mirrors (gzip, zstd or not)
//   POST /v1/entries   the entries it wrote, in its change_log's order
//   POST /v1/tombstones the forgets and restores it made, with what each
//                      covers there, the erasures it made, and what forgets
//                      made elsewhere cover there that the hub did not list
//   GET  /v1/tombstones?after=  the hub's feed of the others' tombstones
//                      and erasures
// Every request needs a device's token (401); a request that names another
// device (`device` in its query or body) gets 403 with the token's device,
// and so does a token named like the hub, which serves no device.  Tokens
// are checked where the request is answered (a reader for reads, the writer
// for a push, in the same job as the write), so a revoked token writes
// nothing after its revocation.  Every field is checked before anything is
// written; a chunk at an offset other than the hub's cursor gets 409 with
// the cursor, and nothing is written.
#include <rapidjson/document.h>

#include <charconv>
#include <cstring>
#include <memory>

#include "core/c/faults.hpp"
#include "core/entries/entries.hpp"
#include "core/hub/replicate.hpp"
#include "core/hub/tokens.hpp"
#include "core/ingest/ingester.hpp"
#include "core/ingest/raw_file.hpp"
#include "core/util/text.hpp"
#include "daemon/http/body_coding.hpp"
#include "daemon/http/form.hpp"
#include "daemon/http/hub_service.hpp"
#include "daemon/hub/wire.hpp"
#include "daemon/operations/operations.hpp"
#include "proto/base64.hpp"
#include "proto/protocol.hpp"

namespace origin::http {

using namespace hub_wire;

namespace {

constexpr char kJson[] = "application/json";
// The longest path or key a chunk may name.
constexpr std::size_t kMaxPathBytes = 4096;

Response V1Json(int status, std::string body) { return WithBody(status, kJson, std::move(body)); }

std::string ErrorBody(const std::string& message) {
  return rpc::Json([&](rpc::Writer& w) {
    w.StartObject();
    w.Key("error");
    w.String(message);
    w.EndObject();
  });
}

Response V1Error(int status, const std::string& message) {
  return V1Json(status, ErrorBody(message));
}

// 403 for a request naming another device than its token's: {error, device}.
std::string OtherDevice(const std::string& named, const std::string& device) {
  return DeviceRefusal("this token is " + device + "'s: it sends and receives " + device +
                           "'s data only, not " + named + "'s",
                       device);
}

// The most log rows a page of the feed of tombstones reads.
constexpr std::size_t kFeedPage = 500;

// The answer of a replication job: its status and body, set on the worker
// and read on the loop once the job has answered.
struct Outcome {
  int status = 200;
  std::string body;
};

// A chunk as /v1/ingest takes it, with the fields of the spec checked.
struct IngestRequest {
  const SourceAdapter* adapter = nullptr;  // the source's
  RemoteChunk chunk;
};

// The fields of an ingest request (spec: HTTP interface), or the error.
bool DecodeIngest(const rapidjson::Value& d, const Context& ctx, IngestRequest* r,
                  std::string* error) {
  std::string source, agent_version, data;
  std::optional<std::int64_t> generation, offset, mtime;
  if (!StringField(d, "source", true, &source, error) ||
      !StringField(d, "path", true, &r->chunk.path, error) ||
      !StringField(d, "relPath", true, &r->chunk.rel_path, error) ||
      !StringField(d, "agentVersion", false, &agent_version, error) ||
      !StringField(d, "data", true, &data, error) ||
      !IntField(d, "generation", true, 1, INT32_MAX, &generation, error) ||
      !IntField(d, "offset", true, 0, std::int64_t{1} << 53, &offset, error) ||
      !IntField(d, "mtimeMs", false, 0, kMaxMs, &mtime, error))
    return false;
  r->adapter = ctx.adapter(source);
  if (r->adapter == nullptr) {
    *error = "unknown source " + source;
    return false;
  }
  const std::string& path = r->chunk.path;
  if (path.empty() || path.size() > kMaxPathBytes || path.find('\0') != std::string::npos ||
      !ValidUtf8(path)) {
    *error = "path is the file's path on the device: UTF-8, at most 4096 bytes";
    return false;
  }
  const std::string& rel = r->chunk.rel_path;
  if (rel.size() > kMaxPathBytes || !SafeKey(rel) || !ValidUtf8(rel)) {
    *error = "relPath is relative, without '..', '.' or empty segments, and not '@...': " + rel;
    return false;
  }
  if (agent_version.size() > 200) {
    *error = "agentVersion is at most 200 bytes";
    return false;
  }
  std::optional<std::string> bytes = proto::Base64Decode(data);
  if (!bytes) {
    *error = "data is padded base64";
    return false;
  }
  // Complete lines: at most kMaxChunkBytes of them, or one longer line.
  if (!bytes->empty() && bytes->back() != '\n') {
    *error = "data is complete lines: it ends with a line break";
    return false;
  }
  if (bytes->size() > HubService::kMaxChunkBytes &&
      bytes->find('\n') != bytes->size() - 1) {
    *error = "data is at most 1 MiB of lines, or one longer line";
    return false;
  }
  r->chunk.generation = *generation;
  r->chunk.offset = *offset;
  r->chunk.mtime_ms = mtime;
  r->chunk.data = std::move(*bytes);
  return true;
}

// The body of a push as JSON into `d`: application/json (415), gzip, zstd
// or not encoded (415 for another coding), at most `limit` bytes once
// decoded (413), one whole gzip stream or zstd frame (400), JSON nested at
// most 64 deep (400: the parse recurses, and a reader's stack is not the
// sender's to use up).  With `text`, the JSON is kept there and parsed in
// place (its strings are not copied: a chunk's base64 is 1.4 MB), so `d`
// may be read as long as `text` lives.  Nothing when it is.
std::optional<Response> ParseBody(const Request& r, rapidjson::Document* d,
                                  std::size_t limit = HubService::kMaxPushJsonBytes,
                                  std::string* text = nullptr) {
  if (MediaType(r) != kJson) return V1Error(415, r.path + " takes application/json");
  std::string decoded;
  const std::string* body = &r.body;
  const std::string too_large = std::to_string(limit >> 20) + " MiB";
  if (const std::string* enc = r.Header("content-encoding"); enc && AsciiLower(*enc) != "identity") {
    const std::string coding = AsciiLower(*enc);
    if (coding != "gzip" && coding != "zstd")
      return V1Error(415, "Content-Encoding is gzip, zstd or none, not " + *enc);
    const bool gzip = coding == "gzip";
    switch (gzip ? Gunzip(r.body, limit, &decoded) : Unzstd(r.body, limit, &decoded)) {
      case DecodeStatus::kOk:
        break;
      case DecodeStatus::kTooLarge:
        return V1Error(413, "the body inflates past " + too_large);
      case DecodeStatus::kMalformed:
        return V1Error(400, gzip ? "the body is not one whole gzip stream"
                                 : "the body is not one whole zstd frame");
    }
    body = &decoded;
  } else if (r.body.size() > limit) {
    return V1Error(413, "the body is larger than " + too_large);
  }
  if (!JsonDepthWithin(*body, 64)) return V1Error(400, "the body is nested too deeply");
  if (text == nullptr) {
    d->Parse(body->data(), body->size());
  } else {
    *text = body == &decoded ? std::move(decoded) : *body;
    // In place, the parse ends at the first NUL: JSON has none outside
    // its escapes, so a body holding one is not JSON.
    if (std::memchr(text->data(), '\0', text->size()) != nullptr)
      return V1Error(400, "the body is not JSON");
    d->ParseInsitu(text->data());
  }
  if (d->HasParseError()) return V1Error(400, "the body is not JSON");
  if (!d->IsObject()) return V1Error(400, "the body is a JSON object");
  return std::nullopt;
}

// Whether every record pushed (an entry, a tombstone) was made by `device`:
// a record another store made is not this device's to send (403 in
// `outcome` for the first that is not).
template <class Record>
bool AllFrom(const std::vector<Record>& records, const std::string& device, Outcome* outcome) {
  for (const Record& r : records)
    if (r.origin != device) {
      *outcome = {403, OtherDevice(r.origin, device)};
      return false;
    }
  return true;
}

// A push as the reader decodes it for the writer: the request, and either
// the refusal or the records of its endpoint.
struct Push {
  Request request;
  std::optional<std::string> named;  // the device the query or body names
  std::optional<Response> refused;
  std::vector<EntryRow> entries;             // POST /v1/entries
  std::vector<ReplicaTombstone> tombstones;  // POST /v1/tombstones
  std::vector<ReplicaErasure> erasures;      // POST /v1/tombstones
  std::vector<CoverageReport> reports;       // POST /v1/tombstones
  IngestRequest ingest;                      // POST /v1/ingest
};

// The body of a push and the fields of its endpoint checked (spec: HTTP
// interface), or `refused` set.
void DecodePush(const Context& ctx, Push* p) {
  std::string text;  // what `d`'s strings point into: declared first, so destroyed last
  rapidjson::Document d;
  if (std::optional<Response> refused =
          ParseBody(p->request, &d, HubService::kMaxPushJsonBytes, &text)) {
    p->refused = std::move(refused);
    return;
  }
  if (const rapidjson::Value* v = Member(d, "device")) {
    if (!v->IsString()) {
      p->refused = V1Error(400, "device is a string");
      return;
    }
    const std::string device(v->GetString(), v->GetStringLength());
    if (p->named && *p->named != device) {
      p->refused = V1Error(400, "the query and the body name different devices");
      return;
    }
    p->named = device;
  }
  std::string error;
  const std::string& path = p->request.path;
  const bool ok = path == "/v1/entries"      ? DecodeEntries(d, &p->entries, &error)
                  : path == "/v1/tombstones" ? DecodeTombstones(d, &p->tombstones, &error) &&
                                                   DecodeErasures(d, &p->erasures, &error) &&
                                                   DecodeReports(d, &p->reports, &error)
                                             : DecodeIngest(d, ctx, &p->ingest, &error);
  if (!ok) p->refused = V1Error(400, error);
}

}  // namespace

std::size_t HubService::BodyLimit(const Request& r) {
  return r.method == "POST" && r.path.starts_with("/v1/") && r.path != "/v1/call"
             ? kMaxPushBodyBytes
             : kMaxBodyBytes;
}

void HubService::V1(const Request& r, Respond respond) {
  struct Route {
    const char* path;
    const char* method;
  };
  static constexpr Route kRoutes[] = {
      {"/v1/device", "GET"},  {"/v1/cursors", "GET"},    {"/v1/ingest", "POST"},
      {"/v1/entries", "POST"}, {"/v1/tombstones", "GET"}, {"/v1/tombstones", "POST"},
      {"/v1/call", "POST"}};
  std::string allowed;
  bool found = false;
  for (const Route& k : kRoutes)
    if (r.path == k.path) {
      allowed += std::string(allowed.empty() ? "" : ", ") + k.method;
      found = found || r.method == k.method;
    }
  if (allowed.empty()) return respond(V1Error(404, "no such endpoint: " + r.path));
  if (!found) {
    Response out = V1Error(405, r.path + " takes " + allowed);
    out.headers.emplace_back("Allow", allowed);
    return respond(std::move(out));
  }
  // A browser's page has no business here (the API is for devices).
  if (const std::string* origin = r.Header("origin"); origin && !HubOriginAllowed(*origin, public_url()))
    return respond(V1Error(403, "requests from the origin " + *origin + " are not answered"));
  std::optional<std::string> token = BearerToken(r);
  if (!token) return respond(Unauthorized(V1Error(401, kNeedToken)));
  ui::Fields query;
  std::string query_error;
  if (!ParseUrlEncoded(r.query, &query, &query_error))
    return respond(V1Error(400, "the query string: " + query_error));
  std::optional<std::string> named;
  if (const std::string* d = query.Get("device")) named = *d;

  Context& ctx = ops_.ctx();
  auto outcome = std::make_shared<Outcome>();
  // Who the token is, checked in the job that answers: the device, or the
  // status and body that refuse it.
  auto device_of = [&ctx, outcome, token = *token](Db& db,
                                                   const std::optional<std::string>& asked)
      -> std::optional<std::string> {
    std::optional<std::string> name = TokenOwner(db, token);
    if (!name) {
      *outcome = {401, ErrorBody("the token is unknown or revoked")};
      return std::nullopt;
    }
    if (asked && *asked != *name) {
      *outcome = {403, OtherDevice(*asked, *name)};
      return std::nullopt;
    }
    if (*name == ctx.store_name.Get()) {
      *outcome = {403, ErrorBody("a token named like the hub (" + *name + ") serves no device")};
      return std::nullopt;
    }
    return name;
  };
  auto answer = [outcome, respond](Answer a) {
    if (a.error) {
      const int status = a.error->code() == OpError::Code::kInvalidArgument ? 400
                         : a.error->code() == OpError::Code::kUnavailable   ? 503
                                                                            : 500;
      return respond(V1Error(status, a.error->what()));
    }
    Response out = V1Json(outcome->status, outcome->body.empty() ? a.result : outcome->body);
    if (outcome->status == 401)
      out.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"origin\", error=\"invalid_token\"");
    respond(std::move(out));
  };

  if (r.path == "/v1/call") {
    // A relay's CLI (spec: Relays; daemon/operations/relay_calls.cpp): one
    // operation of the socket's table that the hub runs for its relays,
    // with the CLI's request, as user@<the token's device>.  The token,
    // then the body (at most 1 MiB, inflated or not) are checked on a
    // reader; the operation runs as any other.
    auto call = std::make_shared<rapidjson::Document>();
    auto device = std::make_shared<std::string>();
    std::optional<std::string> header;
    if (const std::string* h = r.Header("x-origin-device")) header = *h;
    if (named && header && *named != *header)
      return respond(V1Error(400, "the query and X-Origin-Device name different devices"));
    if (named) header = named;  // ?device= as on every /v1/ path
    return ops_.OnWorker(
        Thread::kReader, Caller{},
        [device_of, outcome, call, device, header, request = r](Db& db, rpc::Writer& w) {
          w.Null();
          std::optional<std::string> name = device_of(db, header);
          if (!name) return;
          *device = *name;
          if (std::optional<Response> refused =
                  ParseBody(request, call.get(), HubService::kMaxBodyBytes)) {
            *outcome = {refused->status, std::move(refused->body)};
            return;
          }
          const rapidjson::Value* m = Member(*call, "method");
          if (m == nullptr || !m->IsString() || !HubRunsForRelay(m->GetString())) {
            *outcome = {400, ErrorBody("method is one of search, timeline, show, sources, "
                                       "entries, projects, remember, correct and forget")};
            return;
          }
          const rapidjson::Value* p = Member(*call, "params");
          if (p != nullptr && !p->IsObject() && !p->IsNull()) {
            *outcome = {400, ErrorBody("params is an object")};
            return;
          }
        },
        [this, outcome, call, device, answer, respond](Answer a) {
          if (a.error || !outcome->body.empty()) return answer(std::move(a));
          const std::string method = (*call)["method"].GetString();
          rapidjson::Value* params = nullptr;
          if (auto it = call->FindMember("params"); it != call->MemberEnd() && it->value.IsObject()) {
            params = &it->value;
            // A write's key is the relay's: kept apart from every other
            // device's and agent's.
            if (auto k = params->FindMember("request_key");
                k != params->MemberEnd() && k->value.IsString() && k->value.GetStringLength() > 0)
            {
              const std::string key = "relay:" + *device + ":" +
                                      std::string(k->value.GetString(), k->value.GetStringLength());
              k->value.SetString(key.data(), static_cast<rapidjson::SizeType>(key.size()),
                                 call->GetAllocator());
            }
          }
          Caller caller;
          caller.author = "user@" + *device;
          ops_.Call(method, params, std::move(caller), [respond, call](Answer done) {
            if (done.error) {
              const OpError::Code c = done.error->code();
              const int status =
                  c == OpError::Code::kNotFound || c == OpError::Code::kForgotten ? 404
                  : c == OpError::Code::kConflict                                ? 409
                  : c == OpError::Code::kUnavailable                             ? 503
                  : c == OpError::Code::kInternal                                ? 500
                                                                                 : 400;
              return respond(V1Json(status, proto::ErrorJson(CodeName(c), done.error->what())));
            }
            respond(V1Json(200, rpc::Json([&](rpc::Writer& w) {
                             w.StartObject();
                             w.Key("result");
                             w.RawValue(done.result.data(), done.result.size(),
                                        rapidjson::kObjectType);
                             if (!done.notice.empty()) {
                               w.Key("notice");
                               w.String(done.notice);
                             }
                             w.EndObject();
                           })));
          });
        });
  }

  if (r.path == "/v1/device") {
    return ops_.OnWorker(
        Thread::kReader, Caller{},
        [&ctx, device_of, named](Db& db, rpc::Writer& w) {
          std::optional<std::string> device = device_of(db, named);
          if (!device) return;
          w.StartObject();
          w.Key("device");
          w.String(*device);
          w.Key("hub");
          w.String(ctx.store_name.Get());
          w.EndObject();
        },
        std::move(answer));
  }
  if (r.path == "/v1/cursors") {
    return ops_.OnWorker(
        Thread::kReader, Caller{},
        [device_of, named](Db& db, rpc::Writer& w) {
          std::optional<std::string> device = device_of(db, named);
          if (!device) return;
          w.StartObject();
          w.Key("device");
          w.String(*device);
          w.Key("cursors");
          w.StartArray();
          for (const RemoteCursor& c : DeviceCursors(db, *device)) {
            w.StartObject();
            w.Key("source");
            w.String(c.source);
            w.Key("relPath");
            w.String(c.rel_path);
            w.Key("path");
            w.String(c.path);
            w.Key("generation");
            w.Int64(c.generation);
            w.Key("bytes");
            w.Int64(c.bytes);
            w.Key("lines");
            w.Int64(c.lines);
            w.EndObject();
          }
          w.EndArray();
          w.EndObject();
        },
        std::move(answer));
  }

  if (r.path == "/v1/tombstones" && r.method == "GET") {
    std::int64_t after = 0;
    if (const std::string* a = query.Get("after")) {
      auto [end, ec] = std::from_chars(a->data(), a->data() + a->size(), after);
      if (ec != std::errc() || end != a->data() + a->size() || after < 0)
        return respond(V1Error(400, "after is a sequence number of the hub's log: " + *a));
    }
    return ops_.OnWorker(
        Thread::kReader, Caller{},
        [device_of, named, after](Db& db, rpc::Writer& w) {
          std::optional<std::string> device = device_of(db, named);
          if (!device) return;
          TombstoneFeed feed = TombstonesAfter(db, after, *device, kFeedPage);
          w.StartObject();
          w.Key("tombstones");
          w.StartArray();
          for (const ReplicaTombstone& t : feed.tombstones) WriteTombstone(w, t);
          w.EndArray();
          WriteErasures(w, feed.erasures);
          w.Key("next");
          w.Int64(feed.next);
          w.Key("more");
          w.Bool(feed.more);
          w.EndObject();
        },
        std::move(answer));
  }

  // A push: its body (decoded when gzip or zstd) and its fields are checked on a
  // reader, off the loop (a chunk is 1 MiB of base64 in JSON), before the
  // token is; then it is applied on the writer, with the token checked in
  // the same job.
  auto apply = [this, &ctx, device_of, outcome, answer](std::shared_ptr<Push> push) {
    if (push->request.path == "/v1/entries") {
      return ops_.OnWorker(
          Thread::kWriter, Caller{},
          [&ctx, device_of, push, outcome](Db& db, rpc::Writer& w) {
            std::optional<std::string> device = device_of(db, push->named);
            if (!device || !AllFrom(push->entries, *device, outcome.get())) return;
            PushedEntries o;
            try {
              o = ApplyPushedEntries(db, *device, push->entries);
            } catch (const OpError& e) {
              if (e.code() != OpError::Code::kConflict) throw;
              *outcome = {409, ErrorBody(e.what())};
              return;
            }
            // An erased forget may cover what arrived (RunErasures).
            if (o.applied > 0) ops::RunErasuresLater(ctx);
            w.StartObject();
            w.Key("applied");
            w.Int64(o.applied);
            w.Key("pending");
            if (o.pending) {
              w.StartObject();
              w.Key("id");
              w.String(o.pending->id);
              w.Key("missing");
              w.StartArray();
              for (const std::string& m : o.pending->missing) w.String(m);
              w.EndArray();
              w.EndObject();
            } else {
              w.Null();
            }
            w.EndObject();
          },
          answer);
    }
    if (push->request.path == "/v1/tombstones") {
      return ops_.OnWorker(
          Thread::kWriter, Caller{},
          [&ctx, device_of, push, outcome](Db& db, rpc::Writer& w) {
            std::optional<std::string> device = device_of(db, push->named);
            if (!device || !AllFrom(push->tombstones, *device, outcome.get()) ||
                !AllFrom(push->erasures, *device, outcome.get()))
              return;
            std::int64_t applied = 0;
            try {
              applied = ApplyTombstones(db, ctx.store_name.Get(), push->tombstones,
                                        ListedBy::kDevice, push->erasures) +
                        ApplyReports(db, ctx.store_name.Get(), *device, push->reports);
            } catch (const OpError& e) {
              if (e.code() != OpError::Code::kConflict) throw;
              *outcome = {409, ErrorBody(e.what())};
              return;
            }
            // Run after this job, not in it: the device has its answer
            // while the hub erases (minutes on a large store: VACUUM).  A
            // forget may have come that an erasure waited for.
            ops::RunErasuresLater(ctx);
            w.StartObject();
            w.Key("applied");
            w.Int64(applied);
            w.EndObject();
          },
          answer);
    }
    ops_.OnWorker(
        Thread::kWriter, Caller{},
        [&ctx, device_of, push, outcome](Db& db, rpc::Writer& w) {
          std::optional<std::string> device = device_of(db, push->named);
          if (!device) return;
          IngestRequest& req = push->ingest;
          req.chunk.device = *device;
          Ingester ing(db, ctx.mirrors, ctx.clock);
          RemoteOutcome o;
          try {
            o = ing.IngestRemote(*req.adapter, req.chunk);
          } catch (const std::invalid_argument& e) {
            throw OpError(OpError::Code::kInvalidArgument, e.what());
          } catch (const std::exception& e) {
            // A full disk, an I/O error: rolled back, to be sent again.
            if (IsStoreWriteFailure(e)) throw OpError(OpError::Code::kUnavailable, e.what());
            throw;
          }
          if (o.events > 0 && ctx.indexer != nullptr) ctx.indexer->Notify();
          if (o.events > 0) ops::RunErasuresLater(ctx);  // an erased forget may cover them
          if (!o.appended) outcome->status = 409;
          w.StartObject();
          w.Key("bytes");
          w.Int64(o.bytes);
          if (o.appended) {
            w.Key("lines");
            w.Int64(o.lines);
            w.Key("eventsAdded");
            w.Int64(o.events);
            w.Key("parseErrors");
            w.Int64(o.parse_errors);
          } else {
            w.Key("error");
            w.String("the hub's cursor of this file is at " + std::to_string(o.bytes) +
                     " bytes: send from there");
          }
          w.EndObject();
        },
        answer);
  };
  auto push = std::make_shared<Push>();
  push->request = r;
  push->named = named;
  ops_.OnWorker(
      Thread::kReader, Caller{},
      [&ctx, push](Db&, rpc::Writer& w) {
        DecodePush(ctx, push.get());
        w.Null();
      },
      [push, respond, answer, apply](Answer a) {
        if (a.error) return answer(std::move(a));
        if (push->refused) return respond(std::move(*push->refused));
        apply(push);
      });
}

}  // namespace origin::http
