from blog.posts import Post, slug


def test_slug_is_cut_at_a_word():
    assert slug("one two three four", max_length=13) == "one-two-three"
    assert slug("supercalifragilistic", max_length=5) == "post"


def test_permalink_has_year_and_month():
    post = Post(1, "release notes", "...", published="2024-05-02")
    assert post.permalink == "/2024/05/release-notes"


def test_permalink_is_lower_case_ascii():
    post = Post(2, "Hello from Zürich: NASA and the iPhone", "...", published="2024-05-02")
    assert post.permalink == "/2024/05/hello-from-zurich-nasa-and-the-iphone"
