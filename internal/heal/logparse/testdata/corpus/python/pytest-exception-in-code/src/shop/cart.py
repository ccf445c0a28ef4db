class Cart:
    def __init__(self):
        self.items = {}

    def average(self):
        return sum(self.items.values()) / len(self.items)
