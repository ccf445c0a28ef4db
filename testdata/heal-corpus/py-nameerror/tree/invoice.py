"""Invoice totals with tax and discounts."""

TAX_RATE = 0.2


def subtotal(lines):
    """Sum quantity * unit price over the invoice lines."""
    return sum(qty * price for qty, price in lines)


def total(lines, discount=0.0):
    """Return the amount due: the subtotal less the discount, plus tax."""
    base = subtotal(lines)
    discounted = base * (1 - discount)
    return round(discounted * (1 + TAX_RAT), 2)
