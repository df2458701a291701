# code posted in keras-team/keras#14729 ("too low accuracy")
import pandas as pd
from tensorflow import keras
from tensorflow.keras import layers
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Flatten, Dropout

df = pd.read_csv('data.csv', index_col=0)
df = df.drop('Unnamed: 32', axis=1)

X = df.iloc[:,  2:].values
y = df.iloc[:,  1].values

from sklearn.preprocessing import LabelEncoder
labelencoder_X_1 = LabelEncoder()
y = labelencoder_X_1.fit_transform(y)

from sklearn.model_selection import train_test_split
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size = 0.3, random_state = 0)

from sklearn.preprocessing import StandardScaler
sc = StandardScaler()
X_train = sc.fit_transform(X_train)
X_test = sc.transform(X_test)

model3 = Sequential()

model3.add(Flatten())
model3.add(layers.Dense(16, activation = "relu", kernel_initializer="uniform", input_dim =30))
model3.add(Dropout(0.1))
model3.add(layers.Dense(16, activation="relu", kernel_initializer="uniform"))
model3.add(Dropout(0.1))
model3.add(layers.Dense(1, activation="sigmoid", kernel_initializer="uniform"))

model3.compile(optimizer=keras.optimizers.Adam(),
              loss= keras.losses.categorical_crossentropy,
              metrics= ['accuracy'])

model3.fit(X_train,
           y_train,
           batch_size=100,
           epochs=100)
