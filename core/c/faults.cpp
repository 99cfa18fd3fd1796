// SPDX-License-Identifier: MIT
#include "core/c/faults.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/c/fd.hpp"
#include "core/c/sqlite.hpp"

namespace origin {

namespace {

std::atomic<bool> g_armed{false};
std::atomic<std::int64_t> g_steps{0};
std::mutex g_mu;
FaultPlan g_plan;  // guarded by g_mu

}  // namespace

void ArmFaults(const FaultPlan& plan) {
  std::lock_guard lock(g_mu);
  g_plan = plan;
  g_steps = 0;
  g_armed = true;
}

void DisarmFaults() {
  std::lock_guard lock(g_mu);
  g_plan = FaultPlan{};
  g_armed = false;
}

std::int64_t FaultSteps() { return g_steps.load(); }

int NextWriteStep(WriteStep) noexcept {
  if (!g_armed.load(std::memory_order_relaxed)) return 0;
  std::lock_guard lock(g_mu);
  if (!g_armed.load()) return 0;
  const std::int64_t n = ++g_steps;
  if (g_plan.at == 0 || n < g_plan.at || (!g_plan.lasting && n != g_plan.at)) return 0;
  if (!g_plan.while_exists.empty() && ::access(g_plan.while_exists.c_str(), F_OK) != 0) return 0;
  return g_plan.kind == FaultKind::kFull ? ENOSPC : EIO;
}

std::string ArmFaultsFromEnv() {
  const char* env = std::getenv("ORIGIN_FAULT");
  if (env == nullptr || *env == '\0') return "";
  const std::string v = env;
  auto bad = [&]() -> std::invalid_argument {
    return std::invalid_argument("ORIGIN_FAULT=" + v +
                                 ": expected full@N or io@N, then + to fail every step from "
                                 "the Nth on, then :PATH to fail them only while PATH exists");
  };
  FaultPlan plan;
  const std::size_t at = v.find('@');
  if (at == std::string::npos) throw bad();
  const std::string kind = v.substr(0, at);
  if (kind == "full")
    plan.kind = FaultKind::kFull;
  else if (kind == "io")
    plan.kind = FaultKind::kIo;
  else
    throw bad();
  std::size_t pos = at + 1;
  const std::size_t digits = v.find_first_not_of("0123456789", pos);
  const std::string n =
      v.substr(pos, digits == std::string::npos ? std::string::npos : digits - pos);
  if (n.empty() || n.size() > 15) throw bad();
  plan.at = std::stoll(n);
  if (plan.at < 1) throw bad();
  pos += n.size();
  if (pos < v.size() && v[pos] == '+') {
    plan.lasting = true;
    ++pos;
  }
  if (pos < v.size()) {
    if (v[pos] != ':' || !plan.lasting || pos + 1 == v.size()) throw bad();
    plan.while_exists = v.substr(pos + 1);
  }
  InstallFaultVfs();
  ArmFaults(plan);
  return v;
}

StoreWriteError::StoreWriteError(int err, const std::string& what)
    : std::runtime_error(what + ": " + std::strerror(err)), code_(err, std::generic_category()) {}

void StorePwrite(int fd, std::string_view data, off_t offset, const std::string& path) {
  if (int err = NextWriteStep(WriteStep::kWrite)) {
    // As a disk that fills up mid-write: part of the bytes reach the file.
    try {
      PwriteFull(fd, data.substr(0, data.size() / 2), offset, path);
    } catch (const std::system_error&) {
    }
    throw StoreWriteError(err, "write " + path);
  }
  try {
    PwriteFull(fd, data, offset, path);
  } catch (const std::system_error& e) {
    throw StoreWriteError(e);
  }
}

void StoreFdatasync(int fd, const std::string& path) {
  if (int err = NextWriteStep(WriteStep::kSync)) throw StoreWriteError(err, "sync " + path);
  try {
    Fdatasync(fd, path);
  } catch (const std::system_error& e) {
    throw StoreWriteError(e);
  }
}

void StoreFtruncate(int fd, off_t size, const std::string& path) {
  if (int err = NextWriteStep(WriteStep::kTruncate)) throw StoreWriteError(err, "truncate " + path);
  try {
    Ftruncate(fd, size, path);
  } catch (const std::system_error& e) {
    throw StoreWriteError(e);
  }
}

bool IsStoreWriteFailure(const std::exception& e) noexcept {
  if (dynamic_cast<const StoreWriteError*>(&e) != nullptr) return true;
  if (const auto* s = dynamic_cast<const SqliteError*>(&e)) {
    const int primary = s->code() & 0xff;
    return primary == SQLITE_FULL || primary == SQLITE_IOERR;
  }
  if (const auto* s = dynamic_cast<const std::system_error*>(&e))
    return s->code() == std::errc::no_space_on_device || s->code().value() == EDQUOT;
  return false;
}

}  // namespace origin
