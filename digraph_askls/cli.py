"""Command line interface: ``digraph-askls``."""

import argparse

__all__ = ["main"]


def main(argv=None):
    """Entry point of the ``digraph-askls`` command."""
    parser = argparse.ArgumentParser(prog="digraph-askls")
    parser.parse_args(argv)
    return 0
