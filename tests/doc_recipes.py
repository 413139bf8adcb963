# SPDX-License-Identifier: MIT
"""doc_recipes.py: the shell blocks of a markdown document, run as written.

A doc marks each block it promises works with an HTML comment on the line
before it, `<!-- KIND: NAME -->` (invisible on GitHub), followed by a fenced
block.  tests/check_targets.py runs docs/targets.md's blocks this way, and
tests/check_readme.py README.md's.  Python 3 standard library only.
"""

import os
import re
import subprocess
import sys


def marker_re(kind, name=r"[\w-]+"):
    return re.compile(r"<!-- %s: (%s) -->\s*```\w*\n(.*?)```" % (re.escape(kind), name), re.S)


def blocks(doc, kind):
    """{NAME: block text} of every `<!-- KIND: NAME -->` block of the doc."""
    with open(doc) as f:
        text = f.read()
    found = {}
    for m in marker_re(kind).finditer(text):
        if m.group(1) in found:
            sys.exit("%s marks two blocks `<!-- %s: %s -->`" % (doc, kind, m.group(1)))
        found[m.group(1)] = m.group(2)
    return found


def block(doc, kind, name):
    """The fenced block that follows `<!-- KIND: NAME -->` in the doc."""
    found = blocks(doc, kind)
    if name not in found:
        sys.exit("%s has no block marked `<!-- %s: %s -->`" % (doc, kind, name))
    return found[name]


def bash_argv(script):
    """The argv that runs a block as a user pasting it would, stopping at
    the first failing command and at an unset variable."""
    return ["bash", "-euc", script]


def run(script, cwd, env, timeout=600):
    """Runs a block; returns (exit status, stdout and stderr interleaved)."""
    proc = subprocess.run(bash_argv(script), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)
    return proc.returncode, proc.stdout


def env_with_path(dirs):
    """The environment with dirs in front of PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(list(dirs) + [env.get("PATH", "")])
    return env
