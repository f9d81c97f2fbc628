#pragma once
// A TorchScript --model's probe (its archive loaded and one forward of two samples:
// workloads/scripted_probe.h) in a gpubench process of its own, the way a config runs in
// one: the parent that plans and reports a run never loads the user's code itself, so a
// forward that outgrows memory, never returns or crashes is a refusal naming the model
// (exit 2), not the death or hang of the run.
#include "cli/flags.h"
#include "workloads/model_registry.h"

namespace gpubench {

// The prober register_models takes in a parent (a matrix, --list, tune): each archive is
// probed by `gpubench <settings> --child-probe-model NAME --child-result FILE`, bounded by
// --config-timeout; the child's refusal is this process's UsageError, and a child that
// ends otherwise (the OOM killer, a signal, the timeout) is one that says how it ended.
ArchiveProber probe_in_child_process(const RunSettings& settings);

// The child's side: probes --child-probe-model NAME and writes what it found, or its
// refusal, to --child-result (a file in the parent's private folder). Exit 0, or 2 with
// the refusal written.
int run_probe_child_command(const CliOptions& options);

}  // namespace gpubench
