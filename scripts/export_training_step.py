#!/usr/bin/env python3
"""Exports a gpubench workload's training step as one joint graph, compiled ahead of time.

The compile technique's prepare stage (harness/run/compile_package.cpp) runs this with the
project's Python once per cache key. It builds the workload's Python twin
(scripts/compile_twins.py), exports its step -- forward and the workload's loss, returning
(loss,) -- with torch.export, makes the joint forward-backward graph
(torch.export.experimental._export_forward_backward: outputs the loss, then one gradient a
parameter), compiles it with torch._inductor.aoti_compile_and_package, checks the package
against eager autograd on an example batch, and writes into OUT:
  step.pt2       the package (torch::inductor::AOTIModelPackageLoader loads it in C++)
  manifest.json  what the C++ side needs to run it: the constants (parameters, buffers) in
                 the package's order with their C++ names, the gradient outputs' order, the
                 inputs, the precision, the torch version, the cache key, the check's errors
  log.txt        everything Python and Inductor printed
On failure OUT/error.txt holds "<stage>: <the exception>" (the row's reason) and the exit
code is 3; 2 is a usage error.

bf16 is exported under torch.autocast("cpu", bfloat16) around forward and loss, as
gpubench's eager step scopes it; the casts are ops of the graph, so its backward is
autocast's. Parameters stay fp32 and are passed as user-managed constants: freezing and
constant folding stay off, or the package would hold copies of the first step's weights.

Usage: export_training_step.py --model mlp|gpt2|hf_decoder [--shape JSON] --data-shape 8,1,28,28
         --data-dtype float32 --target-shape 8 --target-dtype int64 --precision fp32|bf16
         [--device cpu] [--attention math|sdpa] [--cache-key KEY] [--threads N] --out DIR
"""
import argparse
import contextlib
import json
import os
import sys
import time
import traceback

torch = None  # imported by main() once the output goes to the log: its import can fail too

# A check's largest error (max |package - eager| over max |eager|, loss and every gradient)
# a package may have. fp32: the same math in another order. bf16: both sides round to bf16
# after each matmul, but Inductor fuses (and keeps in fp32) what eager rounds in between.
CHECK_TOLERANCE = {"fp32": 1e-4, "bf16": 5e-2}
DTYPES = {"float32", "int64"}


class StageFailure(Exception):
    """A stage of the export failed; str() is the row's reason."""


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, choices=["mlp", "gpt2", "hf_decoder"])
    parser.add_argument("--shape", default="{}", help="the C++ model's shape as JSON (gpt2: Gpt2Shape's fields; "
                                                      "hf_decoder: {\"config\": its config.json})")
    parser.add_argument("--data-shape", required=True)
    parser.add_argument("--data-dtype", required=True, choices=sorted(DTYPES))
    parser.add_argument("--target-shape", required=True)
    parser.add_argument("--target-dtype", required=True, choices=sorted(DTYPES))
    parser.add_argument("--precision", required=True, choices=["fp32", "bf16"])
    parser.add_argument("--device", default="cpu", choices=["cpu"])
    parser.add_argument("--attention", default="math", choices=["math", "sdpa"])
    parser.add_argument("--cache-key", default="")
    parser.add_argument("--threads", type=int, default=0, help="torch threads for the check (0: torch's default)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        args.shape = json.loads(args.shape)
        args.data_shape = [int(n) for n in args.data_shape.split(",")]
        args.target_shape = [int(n) for n in args.target_shape.split(",")]
    except ValueError as error:
        parser.error(f"--shape, --data-shape or --target-shape: {error}")
    return args


def training_step(model, loss, precision):
    """The exported module: forward and loss, (loss,) out, autocast as gpubench's step."""

    class TrainingStep(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model  # every exported name is "model." + the C++ name

        def forward(self, data, target):
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
                return (loss(self.model(data), target),)
    return TrainingStep()


def example_batch(args, index_bound):
    def tensor(shape, dtype):
        return torch.randn(shape) if dtype == "float32" else torch.randint(0, index_bound, shape)
    return tensor(args.data_shape, args.data_dtype), tensor(args.target_shape, args.target_dtype)


@contextlib.contextmanager
def stage(name):
    try:
        yield
    except Exception as error:  # the row's reason: which stage, and torch's own words
        message = " ".join(f"{type(error).__name__}: {error}".split())
        raise StageFailure(f"{name}: {message[:2000]}") from error


def relative_error(actual, expected):
    scale = expected.abs().max().item()
    error = (actual.float() - expected.float()).abs().max().item()
    return error / scale if scale > 0 else error


def graph_constants(step):
    """The tensors of the twin that are neither parameters nor buffers (a transformers twin's
    RoPE frequencies, made plain attributes), by the name the package gives the ones the
    graph reads. The C++ side leaves those at their packaged values (harness/run/
    compiled_step.cpp); the check hands them over because the loader's load_constants with
    a full update wants every constant."""
    found = {}
    for prefix, module in step.named_modules():
        for name, value in vars(module).items():
            if isinstance(value, torch.Tensor):
                found[f"{prefix}.{name}" if prefix else name] = value
    return found


def check_package(package, step, batch, precision):
    """The package's loss and gradients against eager autograd's on `batch`: name -> error."""
    loader = torch._C._aoti.AOTIModelPackageLoader(package, "model", False, 1, -1)
    tensors = dict(step.named_parameters())
    tensors.update(step.named_buffers())
    tensors.update(graph_constants(step))
    # What the package holds (a tensor the graph never reads is not among its constants).
    constants = {name: tensors[name] for name in loader.get_constant_fqns() if name in tensors}
    loader.load_constants(constants, False, True, True)
    with torch.no_grad():
        outputs = loader.run(list(batch))
    step.zero_grad(set_to_none=True)
    (loss,) = step(*batch)
    loss.backward()
    errors = {"loss": relative_error(outputs[0], loss.detach())}
    for (name, parameter), gradient in zip(step.named_parameters(), outputs[1:]):
        errors[name] = relative_error(gradient, parameter.grad)
    worst = max(errors, key=errors.get)
    if errors[worst] > CHECK_TOLERANCE[precision]:
        raise ValueError(f"the compiled step differs from eager autograd: {worst} by {errors[worst]:.3g} relative "
                         f"(tolerance {CHECK_TOLERANCE[precision]:g}, {len(outputs)} outputs)")
    return errors


def constant_entries(program, step):
    """The package's constants in the export's order, each with its C++ name."""
    signature = program.graph_signature
    tensors = dict(step.named_parameters())
    tensors.update(step.named_buffers())
    entries = []
    for kind, names in (("parameter", signature.parameters), ("buffer", signature.buffers)):
        for name in names:
            entries.append({"name": name.removeprefix("model."), "exported_name": name, "kind": kind,
                            "shape": list(tensors[name].shape), "dtype": str(tensors[name].dtype).removeprefix("torch.")})
    return entries


def gradient_order(joint):
    """The joint graph's outputs after the loss: the C++ name of each gradient's parameter."""
    from torch.export.graph_signature import OutputKind
    specs = joint.graph_signature.output_specs
    kinds = [spec.kind for spec in specs if spec.kind != OutputKind.BUFFER_MUTATION]
    if not kinds or kinds[0] != OutputKind.LOSS_OUTPUT:
        raise ValueError(f"the joint graph's first output is {kinds[:1]}, expected the loss")
    return [spec.target.removeprefix("model.") for spec in specs if spec.kind == OutputKind.GRADIENT_TO_PARAMETER]


def export(args, out):
    from torch.export.experimental import _export_forward_backward
    import compile_twins
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)  # the twin's own weights: only the check reads them
    manifest = {"format": 1, "torch_version": torch.__version__, "model": args.model, "shape": args.shape,
                "precision": args.precision, "device": args.device, "attention": args.attention,
                "cache_key": args.cache_key,
                "inputs": [{"name": "data", "shape": args.data_shape, "dtype": args.data_dtype},
                           {"name": "target", "shape": args.target_shape, "dtype": args.target_dtype}],
                "name_map": "exported name = 'model.' + the C++ module's name"}
    with stage("build the Python twin"):
        model, loss, index_bound = compile_twins.make_twin(args.model, args.shape, args.attention)
        step = training_step(model, loss, args.precision).train()
        batch = example_batch(args, index_bound)
    started = time.monotonic()
    with stage("torch.export.export"):
        program = torch.export.export(step, batch)
    with stage("torch.export.experimental._export_forward_backward"):
        joint = _export_forward_backward(program)
        manifest["gradients"] = gradient_order(joint)
        manifest["constants"] = constant_entries(joint, step)
    manifest["export_s"] = time.monotonic() - started
    package = os.path.join(out, "step.pt2")
    started = time.monotonic()
    with stage("torch._inductor.aoti_compile_and_package"):
        torch._inductor.aoti_compile_and_package(joint, package_path=package)
    manifest["compile_s"] = time.monotonic() - started
    with stage("the package's check against eager autograd"):
        errors = check_package(package, step, batch, args.precision)
        worst = max(errors, key=errors.get)
        manifest["check"] = {"worst": worst, "worst_relative_error": errors[worst], "compared": len(errors),
                             "tolerance": CHECK_TOLERANCE[args.precision]}
    with open(os.path.join(out, "manifest.json"), "w") as file:
        json.dump(manifest, file, indent=1)


def package_error(log_path):
    """What the package's C++ said when a call failed: the Python exception says only "API
    call failed", the reason ("expected scalar type Float but found BFloat16") went to stderr."""
    marker = "Exception in aoti_torch: "
    with open(log_path, errors="replace") as log:
        said = [line.split(marker, 1)[1].strip() for line in log if marker in line]
    return f" (the package said: {said[-1]})" if said else ""


def main(argv):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    # Inductor and torch print warnings and compiler lines: into the log, not the user's terminal.
    log = os.open(os.path.join(args.out, "log.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    global torch
    try:
        with stage("import torch"):
            import torch
        export(args, args.out)
    except Exception as error:
        traceback.print_exc()
        sys.stderr.flush()
        reason = str(error) if isinstance(error, StageFailure) else f"exporter: {type(error).__name__}: {error}"
        reason += package_error(os.path.join(args.out, "log.txt"))
        with open(os.path.join(args.out, "error.txt"), "w") as file:
            file.write(reason)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
