#!/usr/bin/env python3
"""TorchScript models for gpubench's `--model NAME=FILE.pt` path, and what plain PyTorch makes of them.

Writes into OUTDIR, with the venv's torch and torchvision, from fixed seeds:
  resnet18.pt            torch.jit.script(torchvision.models.resnet18()), 1000 classes
  resnet18.safetensors   x [4, 3, 64, 64], y [4] (int64), losses [5]: a plain Python loop's five
                         Adam(lr=1e-3) steps of cross-entropy on that one batch (train mode, fp32,
                         one thread), parameters [1] (its parameter count), forward_flops [1]
                         (torch.utils.flop_counter.FlopCounterMode on one sample: 2 per multiply-add)
  lm.pt, lm.safetensors  a small causal transformer LM written here (scripted), its head tied to its
                         embedding (one tensor, two owners): ids [4, 32] over a vocabulary of 100; the
                         same five steps (next-token cross-entropy of every position against ids
                         shifted by one)
  scripted_bn.pt         a conv + BatchNorm + dropout model, scripted: train()/eval() reach its ops
  traced_bn.pt           the same traced in train mode: its batch_norm and dropout are frozen
  truncated.pt           the first half of resnet18.pt
  pickle.pt              torch.save(resnet18's state_dict): a zip without code
  two_inputs.pt          a scripted module whose forward takes two tensors
  optional_mask.pt       a scripted classifier whose forward takes a batch and an optional mask
  asserts.pt             a scripted classifier whose forward asserts what the task's input is not
  raises_lines.pt        a scripted classifier whose forward raises an error of two lines, the second
                         a forged gpubench line
  prints.pt              pool.pt whose forward prints terminal escapes (a window title, clear screen)
                         and, on a line of its own, a forged gpubench line
  wrong_shape.pt         a scripted classifier with 7 outputs (the tests ask for 10)
  pool.pt                Linear(3, 10) on the spatial mean: the smallest classifier, for hostile tasks
  int_logits.pt          pool.pt's logits cast to int64 (no gradient through them)
  no_parameters.pt       a classifier without parameters
  frozen.pt              pool.pt with every parameter's requires_grad off
  detached.pt            pool.pt whose forward detaches its logits
  hangs.pt               a classifier whose forward never returns (a loop on a counter)
  huge_forward.pt        a classifier whose forward makes torch.ones(1500000000) (6 GB)
  inflating.pt           pool.pt re-zipped with one more record, deflated, that inflates to 512 MiB
  legacy.pt              torch.save(pool's state_dict) in the legacy (pre-1.6, not zip) format

Usage: scripted_reference.py OUTDIR
"""
import os
import sys
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file

STEPS = 5


class CausalLm(nn.Module):
    def __init__(self, vocab=100, width=32, heads=4, layers=2):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, width)
        self.qkv = nn.ModuleList([nn.Linear(width, 3 * width) for _ in range(layers)])
        self.proj = nn.ModuleList([nn.Linear(width, width) for _ in range(layers)])
        self.norms = nn.ModuleList([nn.LayerNorm(width) for _ in range(layers)])
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.embed.weight  # tied, as GPT-2 and Llama 3.2 tie theirs

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids)
        b, t, c = x.shape
        for qkv, proj, norm in zip(self.qkv, self.proj, self.norms):
            q, k, v = qkv(norm(x)).split(c, dim=2)
            q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + proj(y.transpose(1, 2).reshape(b, t, c))
        return self.head(x)


class ConvBn(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(8, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.drop(F.relu(self.bn(self.conv(x))))
        return self.fc(x.mean(dim=(2, 3)))


class TwoInputs(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


class OptionalMask(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.fc = nn.Linear(3, classes)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        if mask is not None:
            x = x * mask
        return self.fc(x.mean(dim=(2, 3)))


class Asserts(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.fc = nn.Linear(3, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.size(1) == 4, "expected 4 channels"
        return self.fc(x.mean(dim=(2, 3)))


class RaisesLines(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.fc = nn.Linear(3, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.size(1) == 3:
            raise RuntimeError("boom\nResult: 0 regressions, 3 improvements")
        return self.fc(x.mean(dim=(2, 3)))


class Pool(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.fc = nn.Linear(3, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.mean(dim=(2, 3)))


class Prints(Pool):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        print("\x1b]0;pwned\x07\x1b[2J\nResult: 0 regressions, 3 improvements")
        return self.fc(x.mean(dim=(2, 3)))


class IntLogits(Pool):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.mean(dim=(2, 3))).long()


class NoParameters(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.mean(dim=(2, 3)).sum(dim=1, keepdim=True).expand(-1, 10)


class Detached(Pool):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.mean(dim=(2, 3))).detach()


class Hangs(Pool):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        i = 0
        while i >= 0:  # 2**63 steps of the interpreter: never, for a test
            i = i + 1
        return self.fc(x.mean(dim=(2, 3)))


class HugeForward(Pool):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.mean(dim=(2, 3))) + torch.ones([1500000000]).sum() * 0


def inflating_copy(source, target, record_bytes):
    """source's records, stored, plus a deflated record of zeros that inflates to record_bytes."""
    import zipfile
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        prefix = old.namelist()[0].split("/")[0]
        for info in old.infolist():
            new.writestr(info, old.read(info.filename), compress_type=zipfile.ZIP_STORED)
        info = zipfile.ZipInfo(prefix + "/data/99")
        info.compress_type = zipfile.ZIP_DEFLATED
        with new.open(info, "w", force_zip64=True) as big:
            chunk = bytes(1 << 20)
            for _ in range(record_bytes >> 20):
                big.write(chunk)


def python_losses(model, x, y, lm):
    """The plainest Python loop: five Adam steps on one batch."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out.reshape(-1, out.size(-1)), y.reshape(-1))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return torch.tensor(losses, dtype=torch.float64)


def export(model, name, out, x, y, lm=False):
    scripted = torch.jit.script(model)
    scripted.save(os.path.join(out, name + ".pt"))
    from torch.utils.flop_counter import FlopCounterMode
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        model.eval()(x[:1])
    reference = {"x": x, "y": y, "losses": python_losses(torch.jit.load(os.path.join(out, name + ".pt")), x, y, lm),
                 "parameters": torch.tensor([sum(p.numel() for p in model.parameters())], dtype=torch.int64),
                 "forward_flops": torch.tensor([counter.get_total_flops()], dtype=torch.int64)}
    save_file(reference, os.path.join(out, name + ".safetensors"))
    print(f"{name}: {reference['parameters'].item():,} parameters, forward FLOPs {reference['forward_flops'].item():,}, "
          f"losses {[round(v, 6) for v in reference['losses'].tolist()]}")


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    import torchvision
    torch.manual_seed(0)
    resnet = torchvision.models.resnet18()
    g = torch.Generator().manual_seed(1)
    export(resnet, "resnet18", out, torch.randn(4, 3, 64, 64, generator=g), torch.randint(0, 1000, (4,), generator=g))
    torch.manual_seed(2)
    ids = torch.randint(0, 100, (4, 33), generator=g)
    export(CausalLm(), "lm", out, ids[:, :32].contiguous(), ids[:, 1:].contiguous(), lm=True)

    torch.manual_seed(3)
    bn = ConvBn()
    torch.jit.script(bn).save(os.path.join(out, "scripted_bn.pt"))
    # check_trace off: dropout in train mode differs run to run, which the check would flag.
    torch.jit.trace(bn.train(), torch.randn(2, 3, 8, 8), check_trace=False).save(os.path.join(out, "traced_bn.pt"))
    data = open(os.path.join(out, "resnet18.pt"), "rb").read()
    open(os.path.join(out, "truncated.pt"), "wb").write(data[: len(data) // 2])
    torch.save(resnet.state_dict(), os.path.join(out, "pickle.pt"))
    torch.jit.script(TwoInputs()).save(os.path.join(out, "two_inputs.pt"))
    torch.jit.script(ConvBn(classes=7)).save(os.path.join(out, "wrong_shape.pt"))
    torch.jit.script(OptionalMask()).save(os.path.join(out, "optional_mask.pt"))
    torch.jit.script(Asserts()).save(os.path.join(out, "asserts.pt"))
    torch.jit.script(RaisesLines()).save(os.path.join(out, "raises_lines.pt"))
    torch.jit.script(Pool()).save(os.path.join(out, "pool.pt"))
    torch.jit.script(Prints()).save(os.path.join(out, "prints.pt"))
    torch.jit.script(IntLogits()).save(os.path.join(out, "int_logits.pt"))
    torch.jit.script(NoParameters()).save(os.path.join(out, "no_parameters.pt"))
    frozen = Pool()
    for p in frozen.parameters():
        p.requires_grad_(False)
    torch.jit.script(frozen).save(os.path.join(out, "frozen.pt"))
    torch.jit.script(Detached()).save(os.path.join(out, "detached.pt"))
    torch.jit.script(Hangs()).save(os.path.join(out, "hangs.pt"))
    torch.jit.script(HugeForward()).save(os.path.join(out, "huge_forward.pt"))
    inflating_copy(os.path.join(out, "pool.pt"), os.path.join(out, "inflating.pt"), 512 << 20)
    torch.save(Pool().state_dict(), os.path.join(out, "legacy.pt"), _use_new_zipfile_serialization=False)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
