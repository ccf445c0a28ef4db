import os


def size(path):
    return os.path.getsize(path)

  print(size("."))
