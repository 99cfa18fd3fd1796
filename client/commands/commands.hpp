// SPDX-License-Identifier: MIT
#pragma once
// Every entry of the CLI's command table (command_table.hpp), each defined
// in the file of its command; table.cpp puts them in the order
// `origin --help` lists them.

#include "client/command_table.hpp"

namespace origin::client {

extern const Command kStatusCommand;     // status.cpp
extern const Command kSyncCommand;       // status.cpp
extern const Command kSearchCommand;     // search.cpp
extern const Command kTimelineCommand;   // sessions.cpp
extern const Command kProjectsCommand;   // sessions.cpp
extern const Command kEntriesCommand;    // entries.cpp
extern const Command kRememberCommand;   // entries.cpp
extern const Command kCorrectCommand;    // entries.cpp
extern const Command kShowCommand;       // lookup.cpp
extern const Command kSourcesCommand;    // lookup.cpp
extern const Command kForgetCommand;     // forget.cpp
extern const Command kRestoreCommand;    // forget.cpp
extern const Command kForgottenCommand;  // forget.cpp
extern const Command kEraseCommand;      // erase.cpp
extern const Command kExportCommand;     // export.cpp
extern const Command kDoctorCommand;     // doctor.cpp
extern const Command kBackupCommand;     // backup.cpp
extern const Command kVerifyCommand;     // backup.cpp
extern const Command kUiCommand;         // ui.cpp
extern const Command kServeCommand;      // serve.cpp
extern const Command kTokenCommand;      // token.cpp
extern const Command kHubCommand;        // hub.cpp
extern const Command kStopCommand;       // status.cpp

/// `hub` of a sync's answer, printed; its exit code (hub.cpp).
int RenderHubSync(const rapidjson::Value& hub);

}  // namespace origin::client
