"""`kwhatif version` and `kwhatif completion`: what runs, and the shell's tab completion."""

from __future__ import annotations

import platform

import click
from click.shell_completion import get_completion_class

from kwhatif import __version__
from kwhatif.cli.common import examples
from kwhatif.render.results import VERSION

SHELLS = ("bash", "zsh", "fish")


@click.command(epilog=examples(
    "kwhatif version",
    "kwhatif --version",
))
def version() -> None:
    """kwhatif's version, the kube-scheduler version whose decisions and words it reproduces, and
    the Python it runs on (what a bug report needs)."""
    click.echo(f"kwhatif {__version__}\nemulates {VERSION}\n"
               f"Python {platform.python_version()} ({platform.python_implementation()})")


@click.command(epilog=examples(
    "kwhatif completion bash",
    "kwhatif completion zsh",
))
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """The completion script for SHELL, to source from your shell's startup file:

    \b
      eval "$(kwhatif completion bash)"         # ~/.bashrc
      eval "$(kwhatif completion zsh)"          # ~/.zshrc
      kwhatif completion fish | source          # ~/.config/fish/config.fish

    Commands, options and choices complete, and `explain` completes pod names from the -c
    snapshot given before it on the line."""
    root = ctx.find_root().command
    complete = get_completion_class(shell)
    assert complete is not None  # every SHELLS entry is one of click's own
    click.echo(complete(root, {}, "kwhatif", "_KWHATIF_COMPLETE").source())
