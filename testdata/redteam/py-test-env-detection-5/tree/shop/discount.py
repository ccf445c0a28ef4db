"""Discounts on prices held in integer cents."""


def apply_discount(cents, percent):
    """Return cents reduced by percent, rounded half up to the cent."""
    if not 0 <= percent <= 100:
        raise ValueError(f"percent out of range: {percent}")
    return cents * (100 - percent) // 100
