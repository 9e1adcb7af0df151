#!/usr/bin/env python3
"""Compares a kernel whose layouts axe-infer-layouts chose with the
hand-written one it was copied from.

  compare-kernels.py stats HAND.json INFERRED.json
    axe-gpu-run --stats files: the inferred kernel must issue the same GPU
    instructions as the hand-written one (every nvvm.* and nvgpu.* op, by
    issues), make the same shared, global and bulk (TMA, wgmma, tcgen05)
    requests, and neither may have a bank conflict. Global sectors are not
    compared: they follow the host buffers' alignment, which malloc picks.
  compare-kernels.py registers HAND.txt INFERRED.txt [--within PERCENT]
    utils/ptxas-check.py outputs: each inferred module's registers within
    PERCENT (default 10) of the hand-written module's.

Prints one line per kernel with the figures; exits 1 on any difference.
"""
import json
import re
import sys


def gpu_issues(kernel):
    return {name: v['issues'] for name, v in kernel['instructions'].items()
            if name.startswith(('nvvm.', 'nvgpu.'))}


def traffic(kernel):
    shared = kernel.get('shared_total', {})
    glob = kernel.get('global_total', {})
    bulk = kernel.get('bulk_total', {})
    return {
        'shared requests': shared.get('requests', 0),
        'shared wavefronts': shared.get('wavefronts', 0),
        'global requests': glob.get('requests', 0),
        'bulk ops': bulk.get('ops', 0),
        'bulk shared bytes': bulk.get('shared_bytes', 0),
    }


def compare_stats(hand_path, inferred_path):
    hand = {k['name']: k for k in json.load(open(hand_path))['kernels']}
    inferred = {k['name']: k for k in json.load(open(inferred_path))['kernels']}
    bad = 0
    if sorted(hand) != sorted(inferred):
        print('kernels differ: %s vs %s' % (sorted(hand), sorted(inferred)))
        return 1
    for name in sorted(hand):
        h, i = hand[name], inferred[name]
        hi, ii = gpu_issues(h), gpu_issues(i)
        for op in sorted(set(hi) | set(ii)):
            if hi.get(op, 0) != ii.get(op, 0):
                print('%s: %s issued %d times by hand, %d inferred' %
                      (name, op, hi.get(op, 0), ii.get(op, 0)))
                bad += 1
        ht, it = traffic(h), traffic(i)
        for key in ht:
            if ht[key] != it[key]:
                print('%s: %s %d by hand, %d inferred' %
                      (name, key, ht[key], it[key]))
                bad += 1
        conflicts = [k.get('shared_total', {}).get('bank_conflicts', 0)
                     for k in (h, i)]
        if any(conflicts):
            print('%s: bank conflicts %d by hand, %d inferred' %
                  (name, conflicts[0], conflicts[1]))
            bad += 1
        print('%s: %d GPU instruction kinds, %d issues; shared %d requests, '
              '%d bank conflicts; warp instructions %d by hand, %d inferred' %
              (name, len(ii), sum(ii.values()), it['shared requests'],
               conflicts[1], h['warp_instructions'], i['warp_instructions']))
    return 1 if bad else 0


REGISTERS = re.compile(r'^(\S+) (\S+): (\d+) registers')


def registers(path):
    found = {}
    for line in open(path):
        m = REGISTERS.match(line)
        if m:
            found[m.group(1)] = int(m.group(3))
    return found


def compare_registers(hand_path, inferred_path, within):
    hand, inferred = registers(hand_path), registers(inferred_path)
    if not hand or sorted(hand) != sorted(inferred):
        print('modules differ: %s vs %s' % (sorted(hand), sorted(inferred)))
        return 1
    bad = 0
    for name in sorted(hand):
        h, i = hand[name], inferred[name]
        ok = abs(i - h) <= h * within / 100.0
        print('%s: %d registers by hand, %d inferred%s' %
              (name, h, i, '' if ok else ' (beyond %g %%)' % within))
        bad += not ok
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == 'stats':
        return compare_stats(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == 'registers':
        within = 10.0
        if len(argv) == 6 and argv[4] == '--within':
            within = float(argv[5])
        return compare_registers(argv[2], argv[3], within)
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
