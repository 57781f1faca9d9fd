"""The command line's exit codes (``docs/cli.md``), one home that every subcommand imports."""

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 128 + 2  # 128 + SIGINT: what a shell reports for Ctrl-C
EXIT_PIPE = 128 + 13  # 128 + SIGPIPE: what a shell reports when the reader closes the pipe
