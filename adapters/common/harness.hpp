// SPDX-License-Identifier: MIT
#pragma once
// Text an agent's harness injects into a user's turn (spec: Session names,
// "events adapters mark as meta"): command output, notifications, reminders,
// errors of the harness itself.  It is not what the person said, so it is a
// meta event, never a user message, in every adapter that meets it (Claude
// Code's user lines, ZCode's user parts): one rule, here.
//
// The rule: a text is the harness's when, past leading white space, it
// starts with one of the harness's elements (<system-reminder>,
// <local-command-stdout>, <task-notification>, ... : kHarnessTags) or with
// one of its fixed phrases ("Unknown skill: ", "[Request interrupted by
// user", ...: kHarnessPhrases).  The harness writes these as pieces of their
// own (a string content, a text block, a text part); what the person typed
// comes in another piece, so a piece that starts so is the harness's whole.
// A command echo (<command-name>, <bash-input>) is the person's action, not
// the harness's, and is left to the prompt rule (core/query FirstPrompt).
//
// Also the markers that stand in a message for what it attached (an image,
// a document): `[image: image/png, 590 KB]`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace origin::adapters {

/// True when `text` is the harness's (see above).
bool IsHarnessText(std::string_view text);

/// The size of the data a base64 text decodes to (line breaks and spaces in
/// it are not data).
std::int64_t Base64DecodedSize(std::string_view data);

/// The marker of an attachment: `[<kind>: <what>, <size>]`, e.g.
/// `[image: image/png, 590 KB]`; `what` or `bytes` left out when unknown
/// (`[document]`).  Sizes in B, KB (rounded) or MB (one decimal), of 1,024.
std::string AttachmentMarker(std::string_view kind, std::string_view what,
                             std::optional<std::int64_t> bytes);

/// The marker of an attachment given as a URL (Codex's `input_image`): a
/// data URL (`data:image/png;base64,...`) by its media type and size, any
/// other URL by itself, none by its kind alone.
std::string UrlAttachmentMarker(std::string_view kind, std::string_view url);

}  // namespace origin::adapters
