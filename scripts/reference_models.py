"""gpubench's workloads as plain PyTorch defines them, for scripts/reference_loop.py.

The same architecture, shapes and loss as workloads/*.cpp; the standard workloads are their
references themselves: torchvision's resnet50() and HF transformers' GPT2LMHeadModel
configured as nanoGPT's GPT (tests/workloads/reference_outputs.py proves gpubench's models
equal to them). WORKLOADS maps each name to its model, its default batch per device (as
workloads/*.h's default_batch_size), a batch maker and its loss.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


# ---- mlp: workloads/mlp.cpp -------------------------------------------------------------
class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 1024), nn.Linear(1024, 1024), nn.Linear(1024, 10)

    def forward(self, images):
        x = images.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


# ---- cnn: workloads/cnn.cpp -------------------------------------------------------------
def conv3x3(cin, cout, stride):
    return nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = conv3x3(cin, cout, stride), nn.BatchNorm2d(cout)
        self.conv2, self.bn2 = conv3x3(cout, cout, 1), nn.BatchNorm2d(cout)
        self.projection = None
        if stride != 1 or cin != cout:
            self.projection = nn.Conv2d(cin, cout, 1, stride=stride, bias=False)
            self.projection_bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = self.projection_bn(self.projection(x)) if self.projection is not None else x
        return F.relu(out + shortcut)


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem, self.stem_bn = conv3x3(3, 32, 1), nn.BatchNorm2d(32)
        self.block1, self.block2, self.block3 = BasicBlock(32, 32, 1), BasicBlock(32, 64, 2), BasicBlock(64, 128, 2)
        self.head = nn.Linear(128, 10)

    def forward(self, images):
        x = F.relu(self.stem_bn(self.stem(images)))
        x = self.block3(self.block2(self.block1(x)))
        x = F.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
        return self.head(x)


# ---- transformer: workloads/transformer.cpp (TransformerShape defaults) -----------------
VOCAB, D_MODEL, HEADS, LAYERS, FFN, SEQ = 4096, 256, 4, 4, 1024, 128


class DecoderBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D_MODEL), nn.LayerNorm(D_MODEL)
        self.attention = nn.MultiheadAttention(D_MODEL, HEADS)  # [seq, batch, d], as LibTorch's
        self.fc1, self.fc2 = nn.Linear(D_MODEL, FFN), nn.Linear(FFN, D_MODEL)

    def forward(self, x, causal_mask):
        normed = self.ln1(x)
        attended = self.attention(normed, normed, normed, need_weights=False, attn_mask=causal_mask)[0]
        h = x + attended
        return h + self.fc2(F.gelu(self.fc1(self.ln2(h))))


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.token_embedding, self.position_embedding = nn.Embedding(VOCAB, D_MODEL), nn.Embedding(SEQ, D_MODEL)
        self.blocks = nn.ModuleList(DecoderBlock() for _ in range(LAYERS))
        self.final_ln, self.head = nn.LayerNorm(D_MODEL), nn.Linear(D_MODEL, VOCAB)
        self.register_buffer("causal_mask", torch.full((SEQ, SEQ), float("-inf")).triu(1))

    def forward(self, tokens):
        seq = tokens.size(1)
        positions = torch.arange(seq, device=tokens.device)
        x = (self.token_embedding(tokens) + self.position_embedding(positions)).transpose(0, 1)
        mask = self.causal_mask[:seq, :seq]
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.final_ln(x)).transpose(0, 1)


# ---- resnet50 and gpt2: the references themselves (workloads/resnet50.h, workloads/gpt2.h) --
def resnet50():
    import torchvision
    return torchvision.models.resnet50()


class Gpt2(nn.Module):
    """HF GPT2LMHeadModel as nanoGPT's GPT: vocab 50304, exact GELU, dropout 0, sdpa attention."""

    def __init__(self):
        super().__init__()
        from transformers import GPT2Config, GPT2LMHeadModel
        config = GPT2Config(vocab_size=50304, n_positions=1024, n_embd=768, n_layer=12, n_head=12,
                            activation_function="gelu", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
        config._attn_implementation = "sdpa"
        self.model = GPT2LMHeadModel(config)

    def forward(self, tokens):
        return self.model(input_ids=tokens).logits


GPT2_CONTEXT, GPT2_TOKENIZER_VOCAB = 1024, 50257


def classification_loss(output, targets):
    return F.cross_entropy(output.float(), targets)


def next_token_loss(output, targets):
    return F.cross_entropy(output.reshape(-1, output.size(-1)).float(), targets.reshape(-1))


# name -> (model, default batch {cpu, cuda}, batch maker, loss), the batch sizes of workloads/*.h
WORKLOADS = {
    "mlp": (Mlp, (256, 256), lambda b: (torch.randn(b, 1, 28, 28), torch.randint(0, 10, (b,))), classification_loss),
    "cnn": (Cnn, (128, 128), lambda b: (torch.randn(b, 3, 32, 32), torch.randint(0, 10, (b,))), classification_loss),
    "transformer": (Transformer, (32, 32),
                    lambda b: (torch.randint(0, VOCAB, (b, SEQ)), torch.randint(0, VOCAB, (b, SEQ))), next_token_loss),
    "resnet50": (resnet50, (8, 256), lambda b: (torch.randn(b, 3, 224, 224), torch.randint(0, 1000, (b,))),
                 classification_loss),
    "gpt2": (Gpt2, (1, 16), lambda b: (torch.randint(0, GPT2_TOKENIZER_VOCAB, (b, GPT2_CONTEXT)),
                                       torch.randint(0, GPT2_TOKENIZER_VOCAB, (b, GPT2_CONTEXT))), next_token_loss),
}
