#pragma once
#include <string>

namespace gpubench {

// A directory only this user can enter: mkdtemp under $TMPDIR (else /tmp), mode 0700, a
// fresh random name. What gpubench and its config children or DDP ranks hand each other
// (results, trace spans, the checkpoint round trip) goes through it, so another local user
// can neither plant a file there nor redirect a write through a symlink. Removed, with
// everything in it, when the object goes.
class PrivateDir {
 public:
  PrivateDir();  // throws UsageError (a bad TMPDIR) naming the directory and the OS error
  // The same, inside `parent` (itself private) instead of $TMPDIR; "" means $TMPDIR.
  explicit PrivateDir(const std::string& parent);
  ~PrivateDir();
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Whether `path` names a file directly inside a folder PrivateDir made: named
// gpubench-XXXXXX, a real directory (not a link), this user's, mode 0700. The internal
// flags that write a result for a parent (--child-result, --child-trace) write nowhere
// else, so they cannot be used to overwrite an arbitrary file.
bool is_in_private_dir(const std::string& path);

}  // namespace gpubench
