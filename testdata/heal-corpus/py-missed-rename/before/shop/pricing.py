"""Prices in cents, discounts and VAT."""

VAT_PERCENT = 20


def apply_discount(cents, percent):
    """Return cents less percent per cent, rounded down to the cent."""
    if not 0 <= percent <= 100:
        raise ValueError(f"discount {percent}% out of range")
    return cents * (100 - percent) // 100


def with_vat(cents):
    """Return cents plus VAT, rounded to the nearest cent."""
    return (cents * (100 + VAT_PERCENT) + 50) // 100
