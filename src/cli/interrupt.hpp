#pragma once
// Ctrl-C (SIGINT) and SIGTERM: one line on stderr saying the run was interrupted and what was
// kept, then exit status 130. Results stores lose nothing: each record is one write().
#include <string>

namespace nnlb::cli {

// Installs the handler (what was kept: nothing yet) and unblocks the signals, so that a signal
// sent early, even before nnlb started, is handled here.
void handle_interrupts();

// What an interruption keeps from now on, e.g. "finished runs are kept in s.jsonl; ...".
void on_interrupt_keep(const std::string& kept);

}  // namespace nnlb::cli
