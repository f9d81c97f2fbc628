#pragma once
// The workloads a run adds to the built-in ones, and the run's options for the decoder LMs.
// Set once per process from the command line (the parent and every config child parse the
// same flags) before any workload is made; make_workload() and workload_names() read it, so
// a `--model` workload is used everywhere like a built-in one (DESIGN.md, "Models from
// outside"): nothing else learns where a workload came from.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/run_settings.h"
#include "workloads/scripted_probe.h"

namespace gpubench {

class Workload;

// How a TorchScript --model is probed (workloads/scripted_probe.h): NAME, its archive and
// its task in, what the probe found out, or a UsageError.
using ArchiveProber = std::function<ScriptedProbe(const std::string& name, const std::string& path, const ScriptedTask& task)>;

// Reads every --model's config.json (and its weights' index) now, and probes every
// TorchScript --model (its input's size estimated first, against the host memory available)
// through `prober` (by default in this process): a model gpubench cannot honour is a
// UsageError naming the file, the field and the value, before anything runs.
void register_models(const RunSettings& settings, const ArchiveProber& prober = nullptr);

// The task of the TorchScript --model NAME from its flags (--input and --classes, or
// --vocab and --seq-len): UsageError for a missing or contradictory one, saying what to give.
ScriptedTask scripted_task_of(const std::string& name, const RunSettings& settings);

// What the terminal should hear about the --model folders, once (e.g. weights in a format
// gpubench does not read, so that the model trains from random init): empty before
// register_models.
const std::vector<std::string>& registered_model_notices();

// The --model names, in the order given; empty before register_models.
const std::vector<std::string>& registered_model_names();

// The registered workload NAME, or nullptr when NAME is not a --model.
std::unique_ptr<Workload> make_registered_model(const std::string& name);

// --seq-len for a decoder LM named NAME (its own, else the bare one), if given.
std::optional<std::int64_t> sequence_override(const std::string& name);

}  // namespace gpubench
