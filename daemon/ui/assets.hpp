// SPDX-License-Identifier: MIT
#pragma once
// The web UI's embedded assets (daemon/ui/assets/): the stylesheet, the
// script and the favicon, put into the binary at build time by
// assets/embed.py under content-hashed names (pages.hpp's AllAssets()
// lists them for the HTTP server).

#include <span>
#include <string>
#include <string_view>

#include "daemon/ui/pages.hpp"

namespace origin::ui {

struct EmbeddedAsset {
  std::string_view file;  // its plain name in daemon/ui/assets/, e.g. "origin.css"
  Asset asset;            // served as /admin/assets/<asset.name>
};
std::span<const EmbeddedAsset> EmbeddedAssets();  // generated

/// "/admin/assets/<hashed name>" of the asset whose plain name is `file`.
std::string AssetUrl(std::string_view file);

}  // namespace origin::ui
