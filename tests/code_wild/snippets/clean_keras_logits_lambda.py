# code posted in tensorflow/tensorflow#24518: raw Dense(10) scores with from_logits=True
from tensorflow import keras

x = keras.Input(shape=(784,))
h = keras.layers.Dense(128, activation="relu")(x)
y_pred = keras.layers.Dense(10)(h)

model = keras.Model(inputs=x, outputs=y_pred)
model.compile("adam", lambda x, y: keras.losses.sparse_categorical_crossentropy(x, y, from_logits=True))
