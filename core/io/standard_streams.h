#pragma once
// gpubench run with a standard stream closed (`2>&-`, `>&-`, a daemon's closed fds): the
// lowest free descriptor would go to the next file or socket it opens (a DDP rank's TCP
// store, a report), and a progress line written "to stderr" would land in it (seen: a line
// into the store's socket, SIGPIPE, no report). Closed ones are held on /dev/null first.
namespace gpubench {

struct StandardStreams {
  bool stdin_closed = false, stdout_closed = false, stderr_closed = false;
};

// Opens /dev/null on each of fds 0, 1, 2 that is closed; returns which were. Call first in
// main, before anything opens a file.
StandardStreams hold_closed_standard_streams();

}  // namespace gpubench
