"""Service module."""
import json


def handle(event):
    """Handle one event."""
    return undefined_helper(event)
