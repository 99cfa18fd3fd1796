// SPDX-License-Identifier: MIT
#pragma once
// Texts uncut: while a WholeTexts lives on a thread, Truncate (json.hpp)
// cuts nothing there, so that an event's line parsed again gives its whole
// text (origin show --full; the daemon's show).

namespace origin::adapters {

class WholeTexts {
 public:
  WholeTexts();
  ~WholeTexts();
  WholeTexts(const WholeTexts&) = delete;
  WholeTexts& operator=(const WholeTexts&) = delete;
};

}  // namespace origin::adapters
