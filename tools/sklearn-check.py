#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-check mlb-model's trainer against scikit-learn's MLP on the same data and target.

Both learn the dataset's `label` column (`mlb-model train -L label`: a 0/1 label) from the
same training rows, with the same shape (hidden layers 16 and 8, ReLU, a sigmoid output),
optimiser (Adam, learning rate 0.003, mini-batches of 64), epoch limit (50) and early
stopping (20% of the training rows held out, patience 8). Then both are scored on rows
neither has seen: mlb-model's quantized model by `mlb-model eval` (its logloss=), sklearn's
float model by log_loss. Exit 0 when the two held-out losses are within TOL (default 0.03
absolute, stated in docs/model.md), 1 otherwise, 2 on bad use. One line of result.

  tools/sklearn-check.py MLB_MODEL_BINARY WORKDIR [ROWS]

The data is `mlb-model synth` (a labelled rule with noise, seed 7), read with pandas as an
analyst would read a dataset (comment='#': the writer pads page ends with '#' lines).
"""
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import log_loss
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

TOL = 0.03


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.split("\n\n")[2].strip(), file=sys.stderr)
        return 2
    tool, work = sys.argv[1], sys.argv[2]
    rows = int(sys.argv[3]) if len(sys.argv) == 4 else 20000

    run(tool, "synth", "--seed=7", str(rows), f"{work}/all.csv")
    data = pd.read_csv(f"{work}/all.csv", comment="#")
    feats = [c for c in data.columns
             if c not in ("id", "label", "first_wait_us", "decision", "prop_ppm")]
    # rows for training, rows for the held-out score: [rows] -> [0.8 rows], [0.2 rows]
    order = np.random.default_rng(1).permutation(len(data))
    cut = int(0.8 * len(data))
    train, test = data.iloc[order[:cut]], data.iloc[order[cut:]]
    train.to_csv(f"{work}/train.csv", index=False)
    test.to_csv(f"{work}/test.csv", index=False)

    run(tool, "train", "-L", "label", "-H", "16,8", "-e", "50", "-l", "0.003", "-b", "64", "-p", "8",
        "-s", "1", "--val-frac=0.2", "-o", f"{work}/m.mlb", f"{work}/train.csv")
    out = run(tool, "eval", "-L", "label", f"{work}/m.mlb", f"{work}/test.csv")
    ours = float(out.split("logloss=")[1].split()[0])

    # stopping at the epoch limit is what both are told to do, not a problem to warn about
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    sk = make_pipeline(
        StandardScaler(),
        MLPClassifier(hidden_layer_sizes=(16, 8), activation="relu", solver="adam",
                      learning_rate_init=0.003, batch_size=64, max_iter=50,
                      early_stopping=True, validation_fraction=0.2, n_iter_no_change=8,
                      random_state=1))
    sk.fit(train[feats].to_numpy(float), train["label"].to_numpy())
    theirs = log_loss(test["label"].to_numpy(),
                      sk.predict_proba(test[feats].to_numpy(float))[:, 1])

    ok = abs(ours - theirs) <= TOL
    print(f"sklearn-check: {len(train)} training rows, {len(test)} held out: "
          f"mlb-model (quantized) logloss {ours:.4f}, sklearn MLP {theirs:.4f}, "
          f"difference {ours - theirs:+.4f} ({'within' if ok else 'beyond'} {TOL})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
