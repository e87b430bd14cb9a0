"""Shift the timings of .srt subtitle files."""
