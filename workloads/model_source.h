#pragma once
// What a `--model NAME=PATH` names, told by the file's type and first bytes (never by its
// name, and without waiting on it: a FIFO or a device is refused before anything reads it).
#include <string>

namespace gpubench {

enum class ModelSource {
  TorchScriptArchive,  // a regular file that is a zip archive ("PK\3\4")
  ConfigFolder,        // a folder holding config.json (and its weights)
  ConfigFile,          // a regular file that is neither a zip nor a pickle: read as config.json
};

// UsageError "--model NAME='PATH' ...: expected ..." for what is none of them: a missing
// path, a FIFO, socket or device, a folder without config.json (an empty one, a download
// that never finished), a Python pickle (torch.save's legacy format).
ModelSource classify_model_path(const std::string& name, const std::string& path);

// How the source is named in messages ("a TorchScript archive", "a Hugging Face folder").
std::string describe(ModelSource source);

}  // namespace gpubench
