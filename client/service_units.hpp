// SPDX-License-Identifier: MIT
#pragma once
// `origin service install|uninstall|status`: originsd as a user service
// that starts at login and restarts after a failure, from the unit files in
// packaging/ (built in as origin_service_units.h): a systemd user unit on
// Linux, a launchd agent on macOS.  A daemon started on demand is asked to
// stop first so that the service can take over.  See docs/cli.md.

#include <string>
#include <vector>

namespace origin::client {

/// `origin service install [--print] | uninstall | status`; returns the exit code.
int ServiceCommand(const std::vector<std::string>& args);

/// The user service as `origin doctor` checks it.
struct ServiceHealth {
  std::string unit;        // its file
  bool installed = false;  // the file is there
  bool active = false;     // the service manager runs it
  std::string problem;     // why it does not (the service manager's words), when installed
};
ServiceHealth CheckService();

/// The systemd user unit installed with Origin (the Debian package's, and
/// meson install's, under <prefix>/lib/systemd/user): the one `origin
/// service install` writes, with `daemon` and the default store `%h/.origin`
/// of whichever user enables it.  `origin __generate systemd-unit DAEMON`
/// prints it for the build.
std::string PackagedUnitText(const std::string& daemon);

}  // namespace origin::client
