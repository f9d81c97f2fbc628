#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "core/io/output_lock.h"

namespace gpubench {

// A path a command names, as the rules below compare it.
struct NamedPath {
  NamedPath(std::string what, std::string path, bool output = false, bool folder = false);
  std::string what;  // "--out", "--data mlp", "the gpubench executable"
  std::string path;
  bool output = false;
  bool folder = false;         // what lies inside it counts (--hta-dir, a --data folder)
  std::filesystem::path real;  // links and `..` resolved, once: a tree may add a thousand linked folders
};

// Throws UsageError when an output is, or lies inside, an input or another output (or is a
// folder holding one), naming both. A device or FIFO output (/dev/null) is written
// through, never replaced: it overlaps nothing.
void refuse_overlaps(const std::vector<NamedPath>& paths);

// Checks every output of a matrix run (or tune) before anything is measured (throws
// UsageError): --out and --trace can be written as write_file_atomically will, --hta-dir is
// a folder where files can be created, and no output is, or lies inside, an input (--data,
// --ceilings, every file a --model reads: its archive, or its folder's config.json,
// model.safetensors, the index and its shards; this executable) or another output, links
// and `..` resolved. The inputs of a
// --data folder include every folder and file its walk reaches through a link (an
// ImageFolder class folder that links to /x makes /x an input). $TMPDIR (else /tmp), where
// the run's private folder is made, is not, and does not lie inside, an input folder.
// matrix_command calls it for a run, not for --list (which creates nothing).
void check_outputs(const CliOptions& options);

// Locks --out and --trace (core/io/output_lock.h) for as long as the result lives: taken
// right after check_outputs, before anything is measured, by the one process that writes
// them (rank 0 under a launcher), and held until the last write. Throws UsageError naming
// the other gpubench's pid when one is writing either.
std::vector<OutputLock> lock_outputs(const CliOptions& options);

}  // namespace gpubench
