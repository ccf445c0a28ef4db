def normalise(s):
    return s.lower()
