"""The GitHub Actions entry: event parsing, slash commands, permissions and one handler per event."""
