from typing import List


def total(xs: List[int]) -> int:
    return sum(xs)


count: int = "three"
print(total(["a"]))
