"""The `plan-verify` command line. Each subcommand lives in its own module."""
