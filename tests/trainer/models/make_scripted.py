# Scripts a small CNN with PyTorch (torch.jit.script) and saves it: the user's own model
# for tests/trainer/models/torchscript_two_ranks.sh. Input 3x16x16, 10 classes, batch norm.
# Usage: python3 make_scripted.py OUT.pt
import sys

import torch
import torch.nn as nn


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


torch.manual_seed(0)
torch.jit.script(SmallNet()).save(sys.argv[1])
