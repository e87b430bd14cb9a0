"""Formatting durations for the player UI."""


def format_duration(seconds: int) -> str:
    """`seconds` as MM:SS, or H:MM:SS from one hour up."""
    if seconds < 0:
        raise ValueError("negative duration")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes}:{secs}"
    return f"{minutes}:{secs}"
