"""Short programs of our own, written in the idioms PyTorch's tutorials teach.

Each is what a PyTorch user writes after reading one group of the tutorials
(the basics, the 60-minute blitz's classifier, "What is torch.nn really?", the
NLP pages, the YouTube series). They are funcgrad's own code, written for these
tests, not the tutorials' text: the tutorials were read for which APIs and
idioms they use. `tests/examples/test_tutorial_programs.py` runs each on PyTorch
2.13 and, with only its imports changed (`harness.with_funcgrad`), on funcgrad,
and compares what they print and the parameters they end with.

A program that would download data finds it in a global name the test sets
(`images`, `digits`, ...); one that saves a whole model finds its class there
too (`Classifier`), so that `pickle` can find the class again when loading.
"""

from __future__ import annotations

# Tensors: creation, attributes, indexing, joining, products with out=, in place, NumPy.
TENSORS = """
import numpy as np
import torch

grid = [[1, 2, 3], [4, 5, 6]]
a = torch.tensor(grid)
arr = np.array(grid, dtype=np.float32)
b = torch.from_numpy(arr)
print(a, b)
print(torch.ones_like(a), torch.zeros(2, 2), torch.arange(0, 10, 3), torch.linspace(0, 1, 5))
noise = torch.rand_like(b)
print(noise)
print(noise.shape, noise.dtype == torch.float32, noise.device)
print(b[0], b[:, 1], b[..., -1])
b[:, 0] = 0
print(b, arr[1, 0])  # b shares arr's memory
wide = torch.cat([b, b * 2, b + 1], dim=1)
tall = torch.stack([b, b], dim=0)
print(wide.shape, tall.shape)
g1 = b @ b.T
g2 = b.matmul(b.T)
g3 = torch.empty_like(g1)
torch.matmul(b, b.T, out=g3)
print(g1, torch.equal(g1, g2), torch.equal(g2, g3))
h = torch.zeros_like(b)
torch.mul(b, b, out=h)
print(h, b * b)
total = h.sum()
print(total, total.item(), type(total.item()))
b.add_(10)
print(b)
print(arr)  # changed with b
t = torch.ones(4)
n = t.numpy()
t.mul_(3)
print(t, n)
np.add(n, 1, out=n)
print(t)
"""

# Autograd: grad_fn chains, backward, no_grad, detach, Jacobian products with retain_graph.
AUTOGRAD = """
import torch

x = torch.ones(4)
y = torch.tensor([0.0, 1.0, 1.0])
w = torch.randn(4, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = x @ w + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(z.grad_fn.name(), loss.grad_fn.name())
print(type(loss.grad_fn.next_functions[0][0]).__name__)
loss.backward()
print(w.grad)
print(b.grad)
print(z.requires_grad, w.is_leaf, z.is_leaf)
with torch.no_grad():
    z2 = x @ w + b
print(z2.requires_grad)
z3 = z.detach()
print(z3.requires_grad)

inp = torch.eye(3, 4, requires_grad=True)
out = (inp * 2 + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print("first", inp.grad)
out.backward(torch.ones_like(out), retain_graph=True)
print("twice", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(out))
print("after zero_", inp.grad)

a = torch.linspace(0.0, 3.0, steps=7, requires_grad=True)
s = torch.sin(a)
c = 3 * s
total = c.sum()
node = total.grad_fn
names = []
while node is not None:
    names.append(type(node).__name__)
    node = node.next_functions[0][0] if node.next_functions else None
print(names)
total.backward()
print(a.grad)


@torch.no_grad()
def scaled(t):
    return t * 5


print(scaled(a).requires_grad, (a * 5).requires_grad)

net = torch.nn.Linear(3, 1)
for _ in range(2):
    net(torch.ones(2, 3)).sum().backward()
print(net.weight.grad)
net.zero_grad(set_to_none=False)
print(net.weight.grad, net.bias.grad)
net.bias.requires_grad = False
net(torch.ones(1, 3)).sum().backward()
print(net.weight.grad, net.bias.grad)
v = torch.tensor([1.0, 0.1, 0.01])
m = torch.randn(3, requires_grad=True)
(m * 2).backward(v)
print(m.grad)


def square_plus(x, y):
    return x * x + 3 * y


pair = (torch.tensor([1.0, 2.0]), torch.tensor([0.5, -1.0]))
print(torch.autograd.functional.jacobian(square_plus, pair))
print(torch.autograd.functional.vjp(lambda x: x.exp().sum(), torch.tensor([0.0, 1.0])))

with torch.autograd.profiler.profile() as prof:
    for _ in range(50):
        scaled_down = a.detach() * 2 / 3
print(prof.key_averages().table(sort_by="self_cpu_time_total"))
print(scaled_down.sum())
"""

# Quickstart/optimization/save-load: a classifier on image-shaped data, trained with
# DataLoaders, saved and loaded as a state dict and as a whole model.
CLASSIFIER = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

train_x, train_y = images["train"]
test_x, test_y = images["test"]
train_set = TensorDataset(torch.from_numpy(train_x), torch.from_numpy(train_y))
test_set = TensorDataset(torch.from_numpy(test_x), torch.from_numpy(test_y))
train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
test_loader = DataLoader(test_set, batch_size=32)

for xb, yb in test_loader:
    print("batch", xb.shape, yb.shape, yb.dtype == torch.int64)
    break

model = Classifier()
print(model)
for name, p in model.named_parameters():
    print(name, tuple(p.shape), p.flatten()[:3].detach())

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)


def train(loader, model, loss_fn, optimizer):
    model.train()
    for step, (xb, yb) in enumerate(loader):
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 4 == 0:
            print(f"loss {loss.item():>8f} at {step * len(xb):>4d}/{len(loader.dataset)}")


def evaluate(loader, model, loss_fn):
    model.eval()
    total, right = 0.0, 0
    with torch.no_grad():
        for xb, yb in loader:
            logits = model(xb)
            total += loss_fn(logits, yb).item()
            right += (logits.argmax(1) == yb).type(torch.float).sum().item()
    print(f"accuracy {100 * right / len(loader.dataset):>0.1f}%, loss {total / len(loader):>8f}")


for epoch in range(2):
    print(f"epoch {epoch + 1}")
    train(train_loader, model, loss_fn, optimizer)
    evaluate(test_loader, model, loss_fn)

torch.save(model.state_dict(), "weights.pth")
again = Classifier()
again.load_state_dict(torch.load("weights.pth", weights_only=True))
again.eval()
torch.save(again, "whole.pth")
whole = torch.load("whole.pth", weights_only=False)
whole.eval()
with torch.no_grad():
    probs = nn.Softmax(dim=1)(whole(torch.from_numpy(test_x[:3])))
print(probs.argmax(1), test_y[:3], whole.training)
"""

# The blitz's classifier: a small CNN on CIFAR-shaped data through shuffled loaders with
# worker processes, a momentum SGD loop, reloading, class names indexed by 0-dim tensors.
CIFAR_CNN = """
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

kinds = ("ship", "frog", "car", "bird", "cat", "deer", "dog", "horse", "plane", "truck")
train_set = TensorDataset(*(torch.from_numpy(a) for a in cifar["train"]))
test_set = TensorDataset(*(torch.from_numpy(a) for a in cifar["test"]))
train_loader = DataLoader(train_set, batch_size=8, shuffle=True, num_workers=2)
test_loader = DataLoader(test_set, batch_size=8, shuffle=False, num_workers=2)


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 4, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.c2 = nn.Conv2d(4, 8, 5)
        self.f1 = nn.Linear(8 * 5 * 5, 32)
        self.f2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.c1(x)))
        x = self.pool(F.relu(self.c2(x)))
        x = torch.flatten(x, 1)
        return self.f2(F.relu(self.f1(x)))


net = SmallNet()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
for epoch in range(2):
    running = 0.0
    for i, (inputs, labels) in enumerate(train_loader):
        optimizer.zero_grad()
        loss = criterion(net(inputs), labels)
        loss.backward()
        optimizer.step()
        running += loss.item()
        if i % 10 == 9:
            print(f"[{epoch + 1}, {i + 1:3d}] loss: {running / 10:.4f}")
            running = 0.0

torch.save(net.state_dict(), "./small_net.pth")
images, labels = next(iter(test_loader))
print("Truth:", " ".join(f"{kinds[labels[j]]:5s}" for j in range(4)))
net = SmallNet()
net.load_state_dict(torch.load("./small_net.pth", weights_only=True))
_, predicted = torch.max(net(images), 1)
print("Guess:", " ".join(f"{kinds[predicted[j]]:5s}" for j in range(4)))

right = {k: 0 for k in kinds}
seen = {k: 0 for k in kinds}
with torch.no_grad():
    for images, labels in test_loader:
        _, guesses = torch.max(net(images), 1)
        for label, guess in zip(labels, guesses):
            if label == guess:
                right[kinds[label]] += 1
            seen[kinds[label]] += 1
for k in kinds:
    print(f"{k:5s}: {100 * float(right[k]) / seen[k]:.1f} %")
model = net
"""

# "What is torch.nn really?": from hand-written logistic regression to nn.Module, optim,
# TensorDataset/DataLoader, fit(), a CNN, nn.Sequential with a Lambda, a wrapped loader.
NN_REFACTOR = """
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

(x_train, y_train), (x_valid, y_valid) = digits
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))
n, c = x_train.shape
print(x_train.shape, y_train.min(), y_train.max())

weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def nll(pred, target):
    return -pred[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    return (torch.argmax(out, dim=1) == yb).float().mean()


bs, lr = 25, 0.5
xb, yb = x_train[:bs], y_train[:bs]
pred = log_softmax(xb @ weights + bias)
print(pred[0], nll(pred, yb), accuracy(pred, yb))
for i in range((n - 1) // bs + 1):
    xb, yb = x_train[i * bs : (i + 1) * bs], y_train[i * bs : (i + 1) * bs]
    loss = nll(log_softmax(xb @ weights + bias), yb)
    loss.backward()
    with torch.no_grad():
        weights -= weights.grad * lr
        bias -= bias.grad * lr
        weights.grad.zero_()
        bias.grad.zero_()
print(F.cross_entropy(xb @ weights + bias, yb), accuracy(xb @ weights + bias, yb))


class Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
        self.b = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.w + self.b


class LinearLogistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


hand = Logistic()
print(F.cross_entropy(hand(xb), yb))
for i in range((n - 1) // bs + 1):
    loss = F.cross_entropy(hand(x_train[i * bs : (i + 1) * bs]), y_train[i * bs : (i + 1) * bs])
    loss.backward()
    with torch.no_grad():
        for p in hand.parameters():
            p -= p.grad * lr
        hand.zero_grad()
print(F.cross_entropy(hand(xb), yb))


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        print(epoch, np.sum(np.multiply(losses, nums)) / np.sum(nums))


def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs, shuffle=True),
        DataLoader(valid_ds, batch_size=bs * 2),
    )


train_ds, valid_ds = TensorDataset(x_train, y_train), TensorDataset(x_valid, y_valid)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
linear = LinearLogistic()
fit(2, linear, F.cross_entropy, optim.SGD(linear.parameters(), lr=lr), train_dl, valid_dl)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


class WrappedLoader:
    def __init__(self, dl, func):
        self.dl, self.func = dl, func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield self.func(*b)


def as_images(x, y):
    return x.view(-1, 1, 28, 28), y


model = nn.Sequential(
    nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(4, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
print(model)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
train_dl, valid_dl = WrappedLoader(train_dl, as_images), WrappedLoader(valid_dl, as_images)
fit(2, model, F.cross_entropy, optim.SGD(model.parameters(), lr=0.1, momentum=0.9), train_dl, valid_dl)
print(len(train_dl), F.avg_pool2d(torch.ones(1, 1, 4, 4) * 2, 2))
"""

# NLP: affine maps and non-linearities, a bag-of-words classifier, word embeddings and an
# N-gram language model, an EmbeddingBag text classifier.
NLP_WORDS = """
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

lin = nn.Linear(4, 2)
data = torch.randn(3, 4)
print(lin(data))
print(F.relu(data))
print(F.softmax(data[0], dim=0), F.softmax(data[0], dim=0).sum(), F.log_softmax(data[0], dim=0))

train = [
    ("the river is wide and cold".split(), "EN"),
    ("el rio es ancho y frio".split(), "ES"),
    ("la casa es grande".split(), "ES"),
    ("the house is big".split(), "EN"),
]
check = [("el perro es grande".split(), "ES"), ("the dog is cold".split(), "EN")]
index = {}
for words, _ in train + check:
    for w in words:
        index.setdefault(w, len(index))
labels = {"ES": 0, "EN": 1}


class BagOfWords(nn.Module):
    def __init__(self, n_labels, n_words):
        super().__init__()
        self.linear = nn.Linear(n_words, n_labels)

    def forward(self, bow):
        return F.log_softmax(self.linear(bow), dim=1)


def bow_vector(words):
    v = torch.zeros(len(index))
    for w in words:
        v[index[w]] += 1
    return v.view(1, -1)


model = BagOfWords(len(labels), len(index))
for p in model.parameters():
    print(p)
with torch.no_grad():
    for words, _ in check:
        print(model(bow_vector(words)))
print(next(model.parameters())[:, index["es"]])
loss_function = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)
for epoch in range(50):
    for words, label in train:
        model.zero_grad()
        loss = loss_function(model(bow_vector(words)), torch.tensor([labels[label]]))
        loss.backward()
        optimizer.step()
with torch.no_grad():
    for words, _ in check:
        print(model(bow_vector(words)))
print(next(model.parameters())[:, index["es"]])

table = nn.Embedding(3, 4)
print(table(torch.tensor([labels["EN"]], dtype=torch.long)))

text = '''a quiet river runs under the old stone bridge and the old bridge
listens to the river as the quiet night runs on'''.split()
context = 2
grams = [((text[i - 2], text[i - 1]), text[i]) for i in range(context, len(text))]
print(grams[:2])
vocab = sorted(set(text))
ids = {w: i for i, w in enumerate(vocab)}


class Trigram(nn.Module):
    def __init__(self, n_words, dim, context):
        super().__init__()
        self.emb = nn.Embedding(n_words, dim)
        self.hidden = nn.Linear(context * dim, 16)
        self.out = nn.Linear(16, n_words)

    def forward(self, inputs):
        x = self.emb(inputs).view((1, -1))
        return F.log_softmax(self.out(F.relu(self.hidden(x))), dim=1)


trigram = Trigram(len(vocab), 5, context)
opt = optim.SGD(trigram.parameters(), lr=0.01)
nll = nn.NLLLoss()
losses = []
for epoch in range(5):
    total = 0
    for (w1, w2), target in grams:
        trigram.zero_grad()
        loss = nll(trigram(torch.tensor([ids[w1], ids[w2]], dtype=torch.long)), torch.tensor([ids[target]]))
        loss.backward()
        opt.step()
        total += loss.item()
    losses.append(total)
print(losses)
print(trigram.emb.weight[ids["river"]])


class TextClassifier(nn.Module):
    def __init__(self, n_words, dim, n_classes):
        super().__init__()
        self.bag = nn.EmbeddingBag(n_words, dim)
        self.fc = nn.Linear(dim, n_classes)
        nn.init.uniform_(self.bag.weight, -0.5, 0.5)
        nn.init.uniform_(self.fc.weight, -0.5, 0.5)
        self.fc.bias.data.zero_()

    def forward(self, tokens, offsets):
        return self.fc(self.bag(tokens, offsets))


texts = [words for words, _ in train]
tokens = torch.tensor([index[w] for words in texts for w in words])
offsets = torch.tensor([0] + [len(words) for words in texts[:-1]]).cumsum(dim=0)
targets = torch.tensor([labels[label] for _, label in train])
classifier = TextClassifier(len(index), 6, 2)
opt = torch.optim.SGD(classifier.parameters(), lr=1.0)
for epoch in range(20):
    opt.zero_grad()
    loss = nn.CrossEntropyLoss()(classifier(tokens, offsets), targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(classifier.parameters(), 0.1)
    opt.step()
print(offsets, loss, classifier(tokens, offsets).argmax(1))
model = trigram
"""

# NLP: an LSTM fed a step at a time and all at once, an LSTM tagger.
NLP_LSTM = """
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

rnn = nn.LSTM(2, 3)
steps = [torch.randn(1, 2) for _ in range(4)]
state = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
first = state
for x in steps:
    out, state = rnn(x.view(1, 1, -1), state)
print(out)
print(state)
whole = torch.cat(steps).view(len(steps), 1, -1)
outs, state = rnn(whole, first)
print(outs)
print(state)

sentences = [
    ("cats chase the red ball".split(), ["NN", "V", "DET", "ADJ", "NN"]),
    ("the dog eats food".split(), ["DET", "NN", "V", "NN"]),
]
words = {}
for s, _ in sentences:
    for w in s:
        if w not in words:
            words[w] = len(words)
tags = {"DET": 0, "NN": 1, "V": 2, "ADJ": 3}


def as_ids(seq, table):
    return torch.tensor([table[w] for w in seq], dtype=torch.long)


class Tagger(nn.Module):
    def __init__(self, dim, hidden, n_words, n_tags):
        super().__init__()
        self.emb = nn.Embedding(n_words, dim)
        self.lstm = nn.LSTM(dim, hidden)
        self.to_tags = nn.Linear(hidden, n_tags)

    def forward(self, sentence):
        e = self.emb(sentence)
        h, _ = self.lstm(e.view(len(sentence), 1, -1))
        return F.log_softmax(self.to_tags(h.view(len(sentence), -1)), dim=1)


model = Tagger(5, 4, len(words), len(tags))
loss_fn = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)
with torch.no_grad():
    print(model(as_ids(sentences[0][0], words)))
for epoch in range(30):
    for s, t in sentences:
        model.zero_grad()
        loss = loss_fn(model(as_ids(s, words)), as_ids(t, tags))
        loss.backward()
        optimizer.step()
with torch.no_grad():
    scores = model(as_ids(sentences[0][0], words))
    print(scores)
    print(scores.argmax(dim=1))
"""

# NLP, the old way: autograd.Variable around tensors (PyTorch 0.3's programs).
NLP_VARIABLE = """
import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.nn.functional as F

x = autograd.Variable(torch.randn(2, 3), requires_grad=True)
y = autograd.Variable(torch.randn(2, 3), requires_grad=True)
z = x * y + 2
print(z)
s = z.sum()
print(s)
s.backward()
print(x.grad)
print(z.data)
model = nn.Linear(3, 2)
out = F.log_softmax(model(autograd.Variable(torch.randn(4, 3))), dim=1)
print(out)
loss = F.nll_loss(out, autograd.Variable(torch.LongTensor([0, 1, 1, 0])))
print(loss)
loss.backward()
for p in model.parameters():
    p.data.add_(-0.1 * p.grad.data)
print(model.weight)
"""

# A tagger with a CRF layer over a bidirectional LSTM: the forward algorithm, the gold
# path's score and Viterbi decoding in Python loops, with writes into a parameter's .data.
BILSTM_CRF = """
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
BEGIN, END = "<b>", "<e>"


def lse(v):  # log of the sum of exp over the last axis, shifted by the largest entry
    top = torch.max(v, dim=-1, keepdim=True)[0]
    return (top + torch.log(torch.exp(v - top).sum(-1, keepdim=True))).squeeze(-1)


class CrfTagger(nn.Module):
    def __init__(self, n_words, tag_ix, dim, hidden):
        super().__init__()
        self.tag_ix = tag_ix
        self.k = len(tag_ix)
        self.emb = nn.Embedding(n_words, dim)
        self.rnn = nn.LSTM(dim, hidden // 2, bidirectional=True)
        self.emit = nn.Linear(hidden, self.k)
        # trans[i, j]: the score of going from tag j to tag i
        self.trans = nn.Parameter(torch.randn(self.k, self.k))
        self.trans.data[tag_ix[BEGIN], :] = -1e4
        self.trans.data[:, tag_ix[END]] = -1e4
        self.hidden = hidden

    def emissions(self, sentence):
        start = (torch.randn(2, 1, self.hidden // 2), torch.randn(2, 1, self.hidden // 2))
        h, _ = self.rnn(self.emb(sentence).view(len(sentence), 1, -1), start)
        return self.emit(h.view(len(sentence), self.hidden))

    def log_partition(self, feats):
        alpha = torch.full((1, self.k), -1e4)
        alpha[0][self.tag_ix[BEGIN]] = 0.0
        for feat in feats:
            # next[i] = lse_j(alpha[j] + trans[i, j]) + feat[i]
            alpha = (lse(alpha.expand(self.k, self.k) + self.trans) + feat).view(1, -1)
        return lse(alpha + self.trans[self.tag_ix[END]])[0]

    def path_score(self, feats, path):
        path = torch.cat([torch.tensor([self.tag_ix[BEGIN]], dtype=torch.long), path])
        score = torch.zeros(1)
        for i, feat in enumerate(feats):
            score = score + self.trans[path[i + 1], path[i]] + feat[path[i + 1]]
        return score + self.trans[self.tag_ix[END], path[-1]]

    def decode(self, feats):
        best = torch.full((1, self.k), -1e4)
        best[0][self.tag_ix[BEGIN]] = 0
        back = []
        for feat in feats:
            cand = best.expand(self.k, self.k) + self.trans
            value, arg = torch.max(cand, 1)
            back.append(arg)
            best = (value + feat).view(1, -1)
        final = best + self.trans[self.tag_ix[END]]
        score, last = torch.max(final, 1)
        path = [last.item()]
        for arg in reversed(back):
            path.append(arg[path[-1]].item())
        assert path.pop() == self.tag_ix[BEGIN]
        return score, path[::-1]

    def neg_log_likelihood(self, sentence, path):
        feats = self.emissions(sentence)
        return self.log_partition(feats) - self.path_score(feats, path)

    def forward(self, sentence):
        return self.decode(self.emissions(sentence))


data = [
    ("ada lives in paris now".split(), "B O O B O".split()),
    ("bo met ada in rome".split(), "B O B O B".split()),
]
vocab = {}
for s, _ in data:
    for w in s:
        vocab.setdefault(w, len(vocab))
tag_ix = {"B": 0, "O": 1, BEGIN: 2, END: 3}
model = CrfTagger(len(vocab), tag_ix, 4, 4)
opt = optim.SGD(model.parameters(), lr=0.01, weight_decay=1e-4)


def ids(seq, table):
    return torch.tensor([table[x] for x in seq], dtype=torch.long)


with torch.no_grad():
    print(model(ids(data[0][0], vocab)))
for epoch in range(12):
    for s, t in data:
        model.zero_grad()
        loss = model.neg_log_likelihood(ids(s, vocab), ids(t, tag_ix))
        loss.backward()
        opt.step()
with torch.no_grad():
    print(model(ids(data[0][0], vocab)))
print(loss)
"""

# The YouTube series: tensors in more depth, and models' printouts and layers.
DEEPER = """
import numpy as np
import torch

torch.manual_seed(7)
r = torch.rand(2, 3)
print(r, r.dtype == torch.float32)
i = torch.ones((2, 3), dtype=torch.int16)
print(i, (i * 2.5).dtype == torch.float32, i.to(torch.float64))
print(torch.zeros(2, 1) + torch.arange(3.0), torch.rand(2, 3) * torch.ones(1, 3))
print(torch.abs(torch.tensor([-1.0, 2.0])), torch.ceil(r), torch.clamp(r, 0.2, 0.8))
angles = torch.tensor([0, np.pi / 4, np.pi / 2])
print(torch.sin(angles), torch.asin(torch.sin(angles)))
print(torch.bitwise_xor(torch.tensor([1, 2, 3]), torch.tensor([3, 2, 1])))
print(torch.eq(r, r.clone()), torch.max(r), torch.std_mean(r), torch.unique(torch.tensor([3, 1, 3])))
u, v = torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])
print(torch.linalg.cross(u, v), torch.cross(v, u, dim=0))
m = torch.rand(3, 3)
print(torch.matmul(m, m), torch.det(m), torch.svd(m).S)
q = torch.rand(2, 2)
q.sin_()
w = torch.zeros(2, 2)
torch.add(q, 1, out=w)
print(q, w)
o = torch.zeros(2, 2)
same = torch.rand(2, 2, out=o)
print(same is o, o, torch.prod(o), torch.std(o), torch.ones_like(o), torch.rand_like(o).shape)
p = torch.rand(3)
p.unsqueeze_(0)
print(p.shape, p)
c = q.clone()
c[0, 0] = 100
print(q[0, 0] != c[0, 0])
g = torch.rand(2, 2, requires_grad=True)
d = g.clone().detach()
print(g.clone().requires_grad, d.requires_grad)
s = torch.rand(3, 1)
print(s.shape, s.squeeze(1).shape, s.unsqueeze(0).shape, s.reshape(1, 3).shape)
img = torch.rand(3, 4, 4)
print(img.unsqueeze(0).shape, img.view(3, 16).shape, torch.reshape(img, (-1,)).shape)
host = np.ones((2, 2))
t = torch.from_numpy(host)
host[0, 0] = 5
print(t)
back = torch.rand(2, 2).numpy()
print(back.dtype, type(back).__name__)
"""

LAYERS = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Little(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 8)
        self.act = nn.ReLU()
        self.b = nn.Linear(8, 3)
        self.soft = nn.Softmax(dim=1)

    def forward(self, x):
        return self.soft(self.b(self.act(self.a(x))))


model = Little()
print(model)
print(model.b)
for p in model.b.parameters():
    print(p)
print(model(torch.rand(2, 6)))
pool = nn.MaxPool2d(2)
grid = torch.rand(1, 4, 4)
print(grid, pool(grid))
x = torch.rand(1, 4, 4) * 20 + 5
norm = nn.BatchNorm1d(4)
y = norm(x)
print(y, y.mean())
drop = nn.Dropout(p=0.4)
z = torch.rand(1, 4, 4)
print(drop(z), drop(z))
flat = nn.Flatten()
print(flat(torch.ones(2, 3, 2)).shape, F.softmax(torch.tensor([[1.0, 2.0, 3.0]]), dim=1))
"""

PROGRAMS = {
    "tensors": TENSORS,
    "autograd": AUTOGRAD,
    "classifier": CLASSIFIER,
    "cifar_cnn": CIFAR_CNN,
    "nn_refactor": NN_REFACTOR,
    "nlp_words": NLP_WORDS,
    "nlp_lstm": NLP_LSTM,
    "bilstm_crf": BILSTM_CRF,
    "deeper": DEEPER,
    "layers": LAYERS,
}
"""Every program by name (NLP_VARIABLE apart: it prints the PyTorch 0.3 way on funcgrad)."""
