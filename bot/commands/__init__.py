"""The CLI's subcommands, one module each; each module has `register(subparsers)`."""
