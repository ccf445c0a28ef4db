from shop.paging import paginate

PRODUCTS = [
    {"sku": "A-%03d" % i, "name": "Item %d" % i, "price": 100 + i}
    for i in range(1, 48)
]


def list_products(page=1):
    return paginate(PRODUCTS, page, size=20)
