"""A small shop: prices, carts and discounts."""
