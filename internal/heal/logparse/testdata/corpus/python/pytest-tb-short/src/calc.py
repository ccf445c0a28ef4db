def div(a, b):
    return a / b


def avg(xs):
    return div(sum(xs), len(xs))
