"""Keras 3 (torch backend) model.fit with CSVLogger or printed progress."""

import os

import keras
import numpy as np

import common


def run(spec, out):
    c = spec["cfg"]
    bug = spec.get("bug")
    keras.utils.set_random_seed(spec["seed"])
    x, y = common.tabular(c.get("n", 2400), seed=spec["seed"], noise=c.get("noise", 0.05))
    k = 4
    model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(64, activation="relu"),
                              keras.layers.Dropout(c.get("dropout", 0.1)), keras.layers.Dense(64, activation="relu"),
                              keras.layers.Dense(k, activation="softmax")])
    loss = "sparse_categorical_crossentropy"
    yy = y
    if bug == "bce_multiclass":
        yy = np.eye(k, dtype="float32")[y]
        loss = "binary_crossentropy"
    elif bug == "onehot_sparse":
        yy = np.eye(k, dtype="float32")[y]
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=c["lr"]), loss=loss, metrics=["accuracy"])
    cbs = []
    if spec["format"] == "keras_csv":
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out, "training.log")))
    if c.get("early_stop"):
        cbs.append(keras.callbacks.EarlyStopping(monitor="val_loss", patience=c["early_stop"],
                                                 restore_best_weights=True, verbose=1))
    if c.get("plateau"):
        cbs.append(keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, verbose=1))
    verbose = 2 if spec["format"] == "keras_csv" else c.get("verbose", 1)
    model.fit(x, yy, epochs=c["epochs"], batch_size=c.get("bs", 32), validation_split=0.2, callbacks=cbs,
              verbose=verbose)
