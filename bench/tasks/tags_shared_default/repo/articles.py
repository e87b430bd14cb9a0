"""Blog articles and their tags."""


class Article:
    """A titled article with a list of tags."""

    def __init__(self, title: str, tags: list[str] = []):
        self.title = title
        self.tags = tags

    def add_tag(self, tag: str) -> None:
        """Add `tag` once, lower-cased."""
        tag = tag.lower()
        if tag not in self.tags:
            self.tags.append(tag)
