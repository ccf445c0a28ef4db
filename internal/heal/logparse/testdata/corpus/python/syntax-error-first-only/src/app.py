def total(price, quantity)
    return price * quantity


def label(n):
    return "n=" + str(n
