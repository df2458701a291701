# https://github.com/keras-team/keras/issues/6421
X = dataset[:,0:31]
Y = dataset[:,[31,32]]
model = Sequential()
model.add(Dense(40, activation='relu',  kernel_initializer='uniform', input_dim=31))
model.add(Dense(31, activation='relu', kernel_initializer='uniform'))
model.add(Dense(2, activation='sigmoid', kernel_initializer='uniform'))

model.compile(loss='categorical_crossentropy', optimizer='adam', metrics=['categorical_accuracy'])

model.fit(X, Y, epochs=1, batch_size=10,  verbose=2)
score, acc = model.evaluate(X, Y)
predictions = model.predict(X)
