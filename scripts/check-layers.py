#!/usr/bin/env python3
"""Checks that #include lines follow the layers of docs/Architecture.md.

Every source file belongs to a component (its folder under lib/ or
include/axe/, or a top-level folder such as tools/). A file may include its
own component and components of lower layers only: no include runs back up,
and two components of one layer never include each other, so the folders
form no cycle. Prints each offending line and exits with 1 when there is
one.

    scripts/check-layers.py [--root DIR]
"""
import argparse
import os
import re
import sys

# Lowest first. A component is the path below lib/ or include/axe/ that
# names it; the longest matching prefix wins.
LAYERS = [
    ['Support', 'Layout'],
    ['Target'],
    ['Dialect/Axe/IR', 'Dialect/Trn/IR'],
    ['Codegen'],
    ['Dialect/Axe/Transforms', 'Dialect/Trn/Transforms'],
    ['Conversion'],
    ['Runtime', 'TrnSim', 'GPUSim'],
    ['InitAllDialects.h', 'InitAllPasses.h'],
    ['tools', 'bench', 'fuzz', 'unittests', 'examples'],
]
LEVEL = {c: i for i, layer in enumerate(LAYERS) for c in layer}
INCLUDE = re.compile(r'^\s*#\s*include\s+"axe/([^"]+)"')
SOURCES = ('.h', '.cpp', '.inc', '.td')


def component(relative):
    """The component of a path below lib/ or include/axe/, or None."""
    best = None
    for name in LEVEL:
        if relative == name or relative.startswith(name.rstrip('/') + '/'):
            if best is None or len(name) > len(best):
                best = name
    return best


def component_of_file(root, path):
    rel = os.path.relpath(path, root)
    for prefix in ('lib/', 'include/axe/'):
        if rel.startswith(prefix):
            return component(rel[len(prefix):])
    top = rel.split(os.sep)[0]
    return top if top in LEVEL else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--root', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..'))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    bad = 0
    checked = 0
    for top in ('lib', 'include', 'tools', 'bench', 'fuzz', 'unittests'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCES):
                    continue
                path = os.path.join(dirpath, f)
                owner = component_of_file(root, path)
                if owner is None:
                    continue
                with open(path, encoding='utf-8', errors='replace') as text:
                    for number, line in enumerate(text, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        checked += 1
                        target = component(m.group(1))
                        if target is None or target == owner:
                            continue
                        if LEVEL[target] < LEVEL[owner]:
                            continue
                        how = ('up' if LEVEL[target] > LEVEL[owner] else
                               'sideways')
                        print('%s:%d: %s (layer %d) includes %s (layer %d), '
                              '%s: %s' % (os.path.relpath(path, root), number,
                                          owner, LEVEL[owner], target,
                                          LEVEL[target], how, m.group(1)))
                        bad += 1
    print('%d includes checked, %d against the layers' % (checked, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
