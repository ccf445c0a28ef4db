class Money:
    def __init__(self, units):
        self.units = units

    def cents(self):
        return self.units * 10


def parse(s):
    return Money(int(s))
