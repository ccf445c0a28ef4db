"""A cart of items, each a price in cents and a quantity."""

from shop import pricing


class Cart:
    def __init__(self):
        self.items = {}

    def add(self, name, cents, qty=1):
        price, n = self.items.get(name, (cents, 0))
        self.items[name] = (price, n + qty)

    def subtotal(self, discount=0):
        total = sum(price * n for price, n in self.items.values())
        return pricing.apply_discount(total, discount)
