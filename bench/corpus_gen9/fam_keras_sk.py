"""Keras 3 (torch backend) model.fit runs (CSVLogger file, or the printed fit() progress) and scikit-learn
MLPClassifier(verbose=True) runs."""

from __future__ import annotations

import os
import warnings

import numpy as np

import common as C


def _keras():
    import keras

    return keras


def _mlp(keras, d_in, n_out=4, hidden=64, out_act="softmax", name="mlp"):
    L = keras.layers
    return keras.Sequential([keras.Input((d_in,)), L.Dense(hidden, activation="relu"), L.Dense(hidden, activation="relu"), L.Dense(n_out, activation=out_act)], name=name)


def _cnn(keras, pre=None):
    L = keras.layers
    layers = [keras.Input((12, 12, 1))]
    if pre is not None:
        layers.append(pre)
    layers += [L.Conv2D(16, 3, padding="same", activation="relu"), L.Conv2D(32, 3, padding="same", activation="relu"), L.MaxPooling2D(),
               L.Conv2D(32, 3, padding="same", activation="relu"), L.GlobalAveragePooling2D(), L.Dense(4, activation="softmax")]
    return keras.Sequential(layers, name="shapes_cnn")


def _config(run_dir, model, **extra):
    cfg = {"model": model.name, "layers": [type(lay).__name__ for lay in model.layers], "params": int(model.count_params())}
    cfg.update(extra)
    C.write_json(os.path.join(run_dir, "config.json"), cfg)


def keras_csv(spec, run_dir):
    """Keras fit with CSVLogger -> training.csv. kw.task: cnn | mlp_logits | cnn_norm_raw."""
    keras = _keras()
    keras.utils.set_random_seed(spec["seed"])
    task = spec["kw"]["task"]
    cbs = [keras.callbacks.CSVLogger(os.path.join(run_dir, "training.csv"))]
    if task == "cnn":
        X, y = C.shapes(1500, spec["seed"])
        X = X.transpose(0, 2, 3, 1)
        model = _cnn(keras)
        model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        _config(run_dir, model, optimizer="adam", learning_rate=1e-3, batch_size=32, epochs=12, loss="sparse_categorical_crossentropy")
        model.fit(X[:1200], y[:1200], validation_data=(X[1200:], y[1200:]), epochs=12, batch_size=32, callbacks=cbs, verbose=2)
    elif task == "mlp_logits":
        X, y = C.tabular(2500, spec["seed"])
        model = _mlp(keras, 12, 4, out_act="softmax")
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        model.compile(optimizer=keras.optimizers.Adam(1e-3), loss=loss, metrics=["accuracy"])
        _config(run_dir, model, optimizer="adam", learning_rate=1e-3, batch_size=64, epochs=25, loss="SparseCategoricalCrossentropy(from_logits=True)")
        model.fit(X[:2000], y[:2000], validation_data=(X[2000:], y[2000:]), epochs=25, batch_size=64, callbacks=cbs, verbose=2)
    elif task == "cnn_norm_raw":
        img, y = C.shapes_uint8(1500, spec["seed"])
        norm = keras.layers.Normalization(axis=None)
        norm.adapt(img[:1200].astype("float32"))
        x = img.astype("float32") / 255.0
        model = _cnn(keras, pre=norm)
        model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        _config(run_dir, model, optimizer="adam", learning_rate=1e-3, batch_size=32, epochs=12, input_scaling="x/255", normalization="adapted")
        model.fit(x[:1200], y[:1200], validation_data=(x[1200:], y[1200:]), epochs=12, batch_size=32, callbacks=cbs, verbose=2)
    else:
        raise ValueError(task)


def keras_console(spec, run_dir):
    """Keras fit() with its printed progress captured. kw.task: plateau_es | sorted_valsplit | lr_high."""
    keras = _keras()
    keras.utils.set_random_seed(spec["seed"])
    task = spec["kw"]["task"]
    if task == "plateau_es":
        X, y = C.tabular(1600, spec["seed"], noise=0.2)
        model = _mlp(keras, 12, 4, hidden=128)
        model.compile(optimizer=keras.optimizers.Adam(3e-3), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        model.summary()
        cbs = [keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=3, verbose=1),
               keras.callbacks.EarlyStopping(monitor="val_loss", patience=7, restore_best_weights=True, verbose=1)]
        model.fit(X[:1000], y[:1000], validation_data=(X[1000:1300], y[1000:1300]), epochs=60, batch_size=32, callbacks=cbs, verbose=1)
        loss, acc = model.evaluate(X[1300:], y[1300:], verbose=0)
        print(f"test loss {loss:.4f} - test accuracy {acc:.4f}")
    elif task == "sorted_valsplit":
        X, y = C.tabular(2500, spec["seed"])
        order = np.argsort(y, kind="stable")
        X, y = X[order], y[order]
        model = _mlp(keras, 12, 4)
        model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        print(f"loaded {len(y)} rows; class counts {np.bincount(y).tolist()}")
        model.fit(X, y, validation_split=0.2, shuffle=True, epochs=20, batch_size=64, verbose=1)
    elif task == "lr_high":
        X, y = C.tabular(2500, spec["seed"])
        model = _mlp(keras, 12, 4)
        model.compile(optimizer=keras.optimizers.Adam(learning_rate=spec["kw"].get("lr", 0.5)), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        model.summary()
        model.fit(X[:2000], y[:2000], validation_data=(X[2000:], y[2000:]), epochs=20, batch_size=64, verbose=2)
    else:
        raise ValueError(task)


def sk_mlp(spec, run_dir):
    """scikit-learn MLPClassifier(verbose=True): `Iteration n, loss = ...` lines, then a test report."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import classification_report
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    kw = spec["kw"]
    scales = kw.get("scales")
    X, y = C.tabular(3000, spec["seed"], noise=0.1, scales=scales)
    clf = MLPClassifier(hidden_layer_sizes=(64, 64), alpha=kw.get("alpha", 1e-4), learning_rate_init=1e-3, max_iter=kw.get("max_iter", 200),
                        early_stopping=kw.get("early_stopping", False), validation_fraction=0.15, n_iter_no_change=kw.get("n_iter_no_change", 10),
                        random_state=spec["seed"], verbose=True)
    model = clf if kw.get("no_scaler") else make_pipeline(StandardScaler(), clf)
    print(model)
    warnings.simplefilter("always", ConvergenceWarning)
    model.fit(X[:2400], y[:2400])
    print(f"train accuracy: {model.score(X[:2400], y[:2400]):.4f}")
    print(f"test accuracy:  {model.score(X[2400:], y[2400:]):.4f}")
    print(classification_report(y[2400:], model.predict(X[2400:]), digits=3, zero_division=0))
