"""Old code that nothing runs any more."""

import pickle


def restore(blob):
    return pickle.loads(blob)
