// SPDX-License-Identifier: MIT
#pragma once
// The fd and file helpers moved to io/fd.hpp, the layer below core and
// proto that the daemon and the clients share; this header forwards there
// so that the includes of core/c/fd.hpp keep working.

#include "io/fd.hpp"  // IWYU pragma: export
