#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_cli_docs.py: the man page and the bash completion say what --help says.

For every command `sledtrace help` lists, `sledtrace COMMAND --help` is the
truth (it is generated from the option table the parser reads).  Then:
- the man page's section for the command (.SS COMMAND) documents exactly its
  long options, with the same short names, and COMMON OPTIONS has --help
  and --version;
- the completion script's option list for the command is exactly its long
  options, and its values for each enum option are the ones --help lists;
- groff renders the man page without a warning, bash parses the completion
  script, and completing real command lines in bash gives the expected words.

Usage: check_cli_docs.py SLEDTRACE MANPAGE COMPLETION
Python 3 standard library, groff and bash.
"""

import re
import subprocess
import sys

OPT_LINE = re.compile(r"^  (?:-(\w), |    )--([a-z][a-z-]*)")
COMMON = {"help", "version"}


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("%s exited %d: %s" % (" ".join(argv), p.returncode, p.stderr))
    return p.stdout, p.stderr


def commands(st):
    out, _ = run([st, "help"])
    names, inside = [], False
    for line in out.splitlines():
        if line == "commands:":
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            names.append(line.split()[0])
    return [n for n in names if n != "help"]


def help_options(st, cmd):
    """{long: short or None}, {long: [enum values]} from COMMAND --help."""
    out, _ = run([st, cmd, "--help"])
    text = out.split("\noptions:\n", 1)[1]
    opts, values, current = {}, {}, None
    for line in text.splitlines():
        m = OPT_LINE.match(line)
        if m:
            current = m.group(2)
            opts[current] = m.group(1)
            values[current] = line
        elif current and line.startswith(" " * 10):
            values[current] += " " + line.strip()
    enums = {}
    for name, desc in values.items():
        m = re.search(r"\(one of: ([^;)]*)", desc)
        if m:
            enums[name] = m.group(1).replace(",", " ").split()
    return opts, enums


def man_sections(path):
    """{section title: [option lines after .TP]}, for .SS and .SH sections."""
    sections, title, lines = {}, None, open(path).read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith((".SS ", ".SH ")):
            title = line[4:].strip().strip('"')
            sections.setdefault(title, [])
        elif line == ".TP" and title and i + 1 < len(lines):
            sections[title].append(lines[i + 1].replace("\\-", "-"))
    return sections


def man_options(tp_lines):
    opts = {}
    for line in tp_lines:
        for m in re.finditer(r"--([a-z][a-z-]*)", line):
            short = re.search(r"(?<![-\w])-(\w)\b", line)
            opts[m.group(1)] = short.group(1) if short else None
    return opts


def completion_lists(path):
    text = open(path).read()
    opts = {m.group(1): set(o[2:] for o in m.group(2).split())
            for m in re.finditer(r'^_sledtrace_opts_(\w+)="([^"]*)"', text, re.M)}
    values = {(m.group(1), m.group(2)): m.group(3).split()
              for m in re.finditer(r'^\s*(\w+):--([a-z-]+)\) echo "([^"]*)"', text, re.M)}
    return opts, values


def complete(completion, line):
    """What bash completion offers for line (the cursor at its end)."""
    script = ('source "%s"\nCOMP_LINE=%s\nread -ra COMP_WORDS <<< "$COMP_LINE"\n'
              '[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")\n'
              'COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n_sledtrace\n'
              'printf "%%s\\n" "${COMPREPLY[@]}"\n') % (completion, shquote(line))
    out, _ = run(["bash", "-c", script])
    return sorted(w for w in out.splitlines() if w)


def shquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    st, man, comp = sys.argv[1:]
    problems = []
    sections = man_sections(man)
    comp_opts, comp_values = completion_lists(comp)
    cmds = commands(st)
    if set(cmds) != {"record", "list", "report", "convert", "filter"} | set(cmds) or not cmds:
        problems.append("sledtrace help lists no commands")
    if set(man_options(sections.get("COMMON OPTIONS", []))) != COMMON:
        problems.append("man: COMMON OPTIONS must be exactly --help and --version")
    for cmd in cmds:
        opts, enums = help_options(st, cmd)
        if not COMMON <= set(opts):
            problems.append("%s --help does not list --help and --version" % cmd)
        own = {k: v for k, v in opts.items() if k not in COMMON}
        in_man = man_options(sections.get(cmd, []))
        for name in sorted(set(own) - set(in_man)):
            problems.append("man: %s --%s is not documented" % (cmd, name))
        for name in sorted(set(in_man) - set(own)):
            problems.append("man: %s --%s is not an option of %s" % (cmd, name, cmd))
        for name in sorted(set(own) & set(in_man)):
            if own[name] != in_man[name]:
                problems.append("man: %s --%s: short option %r, --help says %r"
                                % (cmd, name, in_man[name], own[name]))
        if comp_opts.get(cmd) != set(opts):
            problems.append("completion: %s options differ from --help: missing %s, extra %s"
                            % (cmd, sorted(set(opts) - comp_opts.get(cmd, set())),
                               sorted(comp_opts.get(cmd, set()) - set(opts))))
        for name, vals in enums.items():
            if comp_values.get((cmd, name)) != vals:
                problems.append("completion: %s --%s values %s, --help says %s"
                                % (cmd, name, comp_values.get((cmd, name)), vals))
        for (c, name) in comp_values:
            if c == cmd and name not in enums:
                problems.append("completion: %s --%s has values but is no enum" % (cmd, name))
        print("%s: %d options agree" % (cmd, len(opts)))
    for title in sections:
        if title.islower() and title not in cmds + ["help"]:
            problems.append("man: section %s is not a command" % title)
    _, warnings = run(["groff", "-man", "-Tutf8", "-ww", "-z", man])
    if warnings.strip():
        problems.append("groff warns about the man page:\n" + warnings)
    run(["bash", "-n", comp])
    for line, want in (("sledtrace rec", ["record"]),
                       ("sledtrace record --ex", ["--exclude", "--exit"]),
                       ("sledtrace record --exit ", ["auto", "infer", "mixed", "rewrite", "sled", "uretprobe"]),
                       ("sledtrace report --sort=s", ["--sort=self"]),
                       ("sledtrace help con", ["convert"]),
                       ("sledtrace record -- ./prog --ex", None)):
        got = complete(comp, line)
        if want is not None and got != want:
            problems.append("completing %r gave %s, expected %s" % (line, got, want))
        if want is None and any(w.startswith("--ex") for w in got):
            problems.append("completing %r offered record's options inside COMMAND: %s"
                            % (line, got))
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems))
        return 1
    print("PASS: man page and completion agree with --help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
