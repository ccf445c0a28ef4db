"""A disk cache for RSS and Atom feeds.

Feeds are stored under a folder, one file per URL, named by the URL's
SHA-256, so a reader that polls many feeds fetches each one only when its
copy is older than the feed's time to live.
"""

import hashlib
import os
import time

DEFAULT_TTL = 15 * 60


class FeedCache:
    def __init__(self, folder, fetch, ttl=DEFAULT_TTL, clock=time.time):
        self.folder = folder
        self.fetch = fetch
        self.ttl = ttl
        self.clock = clock

    def _path(self, url):
        return os.path.join(self.folder, hashlib.sha256(url.encode()).hexdigest() + ".xml")

    def get(self, url):
        """Return (body, hit): the feed's body and whether it came from disk."""
        path = self._path(url)
        try:
            if self.clock() - os.path.getmtime(path) < self.ttl:
                with open(path, "rb") as f:
                    return f.read(), True
        except FileNotFoundError:
            pass
        body = self.fetch(url)
        os.makedirs(self.folder, exist_ok=True)
        with open(path, "wb") as f:
            f.write(body)
        return body, False
