from shop.catalog import PRODUCTS
from shop.paging import paginate


def search(query, page=1):
    q = query.lower()
    hits = [p for p in PRODUCTS if q in p["name"].lower() or q in p["sku"].lower()]
    return paginate(hits, page=page, size=5)
