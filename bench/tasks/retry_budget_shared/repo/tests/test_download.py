from fetchkit import Retry, download_all
from fetchkit.download import target_name


def test_target_name():
    assert target_name("https://example.org/data/a.csv?x=1") == "a.csv"
    assert target_name("https://example.org/") == "index.html"


def test_saves_every_url(tmp_path):
    pages = {"https://example.org/a.txt": b"A", "https://example.org/b.txt": b"B"}
    result = download_all(pages, tmp_path, fetch=pages.__getitem__)
    assert [p.name for p in result.saved] == ["a.txt", "b.txt"] and result.failed == []
    assert (tmp_path / "b.txt").read_bytes() == b"B"


def test_a_dead_url_does_not_stop_the_rest(tmp_path):
    def fetch(url):
        if "dead" in url:
            raise TimeoutError("timed out")
        return b"ok"

    retry = Retry(attempts=2, delay=0, sleep=lambda s: None)
    result = download_all(["https://x.org/dead.txt", "https://x.org/c.txt"], tmp_path, retry=retry, fetch=fetch)
    assert result.failed == [("https://x.org/dead.txt", "gave up after 2 attempt(s): timed out")]
    assert [p.name for p in result.saved] == ["c.txt"]


def test_every_file_of_a_long_job_gets_its_retries(tmp_path):
    resets = {}

    def fetch(url):  # every file's first request is reset, the second one works
        resets[url] = resets.get(url, 0) + 1
        if resets[url] == 1:
            raise ConnectionResetError("connection reset by peer")
        return url.encode()

    urls = [f"https://x.org/part{i}.bin" for i in range(6)]
    result = download_all(urls, tmp_path, retry=Retry(attempts=3, delay=0, sleep=lambda s: None), fetch=fetch)
    assert result.failed == []
    assert len(result.saved) == 6
