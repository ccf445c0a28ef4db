def restock(levels, item):
    levels[item] += 10
    return levels
