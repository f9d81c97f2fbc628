#include "core/io/standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>

namespace gpubench {
namespace {

bool closed(int fd) { return ::fcntl(fd, F_GETFD) == -1 && errno == EBADF; }

}  // namespace

StandardStreams hold_closed_standard_streams() {
  StandardStreams streams{closed(0), closed(1), closed(2)};
  // open() returns the lowest free descriptor: the closed ones, in order.
  for (const bool was_closed : {streams.stdin_closed, streams.stdout_closed, streams.stderr_closed})
    if (was_closed) (void)::open("/dev/null", O_RDWR);
  return streams;
}

}  // namespace gpubench
