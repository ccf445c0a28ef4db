import tempfile
import unittest

from feedcache import FeedCache


def fake_fetch(url):
    return ("<rss><channel><title>%s</title></channel></rss>" % url).encode()


class FeedCacheTest(unittest.TestCase):
    def test_fetches_then_serves_from_disk(self):
        with tempfile.TemporaryDirectory() as d:
            cache = FeedCache(d, fake_fetch)
            body, hit = cache.get("https://example.org/feed.xml")
            self.assertFalse(hit)
            again, hit = cache.get("https://example.org/feed.xml")
            self.assertTrue(hit)
            self.assertEqual(body, again)

    def test_expired_copy_is_fetched_again(self):
        with tempfile.TemporaryDirectory() as d:
            now = [1000.0]
            cache = FeedCache(d, fake_fetch, ttl=60, clock=lambda: now[0])
            cache.get("https://example.org/feed.xml")
            now[0] += 10 ** 10
            _, hit = cache.get("https://example.org/feed.xml")
            self.assertFalse(hit)

    def test_subscriptions_are_warm(self):
        # The reader's own cache folder, as it is used in development.
        cache = FeedCache(".feedcache", fake_fetch, ttl=10 ** 9)
        urls = ("https://example.org/news.xml", "https://example.org/blog.xml")
        cold = [url for url in urls if not cache.get(url)[1]]
        self.assertEqual(cold, [], "fetched again: the cache is cold")


if __name__ == "__main__":
    unittest.main()
