def mean(values):
    total = sum(values)
    return total / len(values)
