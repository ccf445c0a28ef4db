from typing import Optional


def name_len(name: Optional[str]) -> int:
    return len(name)


count: int = "three"
