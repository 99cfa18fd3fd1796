// SPDX-License-Identifier: MIT
#pragma once
// The user's pager for long output on a terminal, as git does it: stdout
// goes through $ORIGIN_PAGER, else $PAGER, else `less -FRX` (LESS=FRX is set
// when LESS is not, so that a plain `less` keeps colours and quits when the
// output fits one screen).  An empty pager or `cat` means none.  Only when
// stdout is a terminal: a pipe is never paged.

namespace origin::client {

/// Starts the pager and points stdout at it; false when there is none to
/// start (stdout not a terminal, no pager, or it could not be started).
bool StartPager();
/// Flushes stdout, closes it so that the pager sees the end, and waits for
/// the pager to exit.  Nothing when none was started.
void FinishPager();

}  // namespace origin::client
