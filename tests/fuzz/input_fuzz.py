#!/usr/bin/env python3
"""Feeds netsim malformed and extreme input and checks that it fails cleanly.

Four kinds of cases, each drawn from a seeded generator (the same seed gives
the same cases):
  text   the shipped scenarios (or a profile they include) with lines
         mutated: values replaced, lines deleted, duplicated, re-indented or
         swapped, keys renamed, garbage inserted, the file truncated; then
         validate, run, or (for T1 and T2) a one-evaluation calibrate;
  set    --set overrides on the scenarios' own keys, with values of any type
         or of the field's type at its extremes (1 bit/s .. 1 Tbit/s, 0 B ..
         1 GB, 0 s .. 10^6 s, integers to 2^31);
  cli    random commands, flags and flag values;
  store  a sweep's result directory with files truncated, bit-flipped,
         deleted, emptied or replaced by directories, then `results` and
         `sweep --resume` on it.
A case fails when netsim dies of a signal (a crash, or the kernel's OOM
killer), prints a sanitizer report or "internal error", exits with a code
the CLI does not document, takes longer than the timeout, or rejects a
scenario (exit 3) without naming its file (and the line, where the field
is there) or the --set that was wrong.

usage: input_fuzz.py NETSIM SOURCE_DIR CASES_PER_KIND [SEED] [TIMEOUT_S]
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

NETSIM, SRC, CASES = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), int(sys.argv[3])
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 1
TIMEOUT = float(sys.argv[5]) if len(sys.argv) > 5 else 300.0
SCEN = os.path.join(SRC, 'scenarios')
SCENARIOS = sorted(f for f in os.listdir(SCEN) if f.endswith('.yaml'))
PROFILES = sorted(os.listdir(os.path.join(SCEN, 'profiles')))
SHORT = ['--set', 'duration=0.2s', '--set', 'interval=0.1s', '--set', 'seeds=1']
ANY = ['-1', '0', '1', '1e308', '.nan', '.inf', 'abc', '[]', '{}', '""', '~', '99999999999999999999',
       '4294967296', '-2147483649', '1us', '0us', '-5ms', '0s', '1ps', '1e300s', '1Tbps', '0bps', '1bps',
       '-1Gbps', '1KB', '0B', '1e12B', '1.5', '[1, 2]', '{a: 1}', 'true', 'false', '1%', '150%', '-3%',
       'newreno', 'cubic', 'exponential', 'after_gro', '10.0.0.1', '10.0.0.999', '"x"', "'", '"', '[', '{',
       '*anchor', '&a x', '!!binary AAAA', '0x10', '1_000', '+5']
TYPED = {
    'duration': ['0s', '1ps', '1ns', '1us', '13us', '1ms', '50ms', '1s', '30s', '1000s', '1e6s'],
    'rate': ['1bps', '1kbps', '1Mbps', '10Mbps', '999Mbps', '10Gbps', '100Gbps', '1Tbps'],
    'size': ['0B', '1B', '64B', '1500B', '9000B', '64KB', '1MB', '1GB'],
    'int': ['0', '1', '2', '3', '7', '64', '255', '256', '65535', '65536', '1000000', '2147483647'],
    'float': ['0', '0.5', '1', '1.0001', '100', '1e-9'],
    'bool': ['true', 'false'],
}
failures = []


def value_kind(v):
    s = str(v)
    if isinstance(v, bool):
        return 'bool'
    if re.fullmatch(r'[\d.]+(ps|ns|us|ms|s)', s):
        return 'duration'
    if re.fullmatch(r'[\d.]+[kMGT]?bps', s):
        return 'rate'
    if re.fullmatch(r'[\d.]+([KMG]i?)?B', s):
        return 'size'
    if isinstance(v, int):
        return 'int'
    if isinstance(v, float):
        return 'float'
    return None


def leaves(node, prefix):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, f'{prefix}.{k}' if prefix else str(k))
    else:
        yield prefix, node


def scenario_keys():
    """Each scenario's settable leaves (and its elements' profile fields) with their values."""
    profiles = {}
    for f in PROFILES:
        for name, body in ((yaml.safe_load(open(os.path.join(SCEN, 'profiles', f))) or {}).get('profiles') or {}).items():
            profiles[name] = body
    out = []
    for f in SCENARIOS:
        d = yaml.safe_load(open(os.path.join(SCEN, f)))
        keys = dict(leaves({k: v for k, v in d.items() if k not in ('measured', 'name', 'description', 'include')}, ''))
        for sect in ('hosts', 'links', 'switches'):
            for name, body in (d.get(sect) or {}).items():
                if isinstance(body, dict) and body.get('profile') in profiles:
                    for k, v in leaves(profiles[body['profile']], ''):
                        keys.setdefault(f'{sect}.{name}.{k}', v)
        keys.update({'hosts.x.nic.gro': None, 'traffic.new': None, 'links.x': None, 'max_packets': 1024})
        out.append((f, sorted(keys.items(), key=lambda kv: kv[0])))
    return out


def run(args, cwd, what):
    try:
        p = subprocess.run(args, capture_output=True, timeout=TIMEOUT, cwd=cwd)
    except subprocess.TimeoutExpired:
        failures.append(f'{what}: timeout after {TIMEOUT:.0f} s: {" ".join(args[1:])}')
        return None, ''
    err = p.stderr.decode('utf-8', 'replace')
    bad = None
    if p.returncode < 0:
        bad = f'killed by signal {-p.returncode}' + (' (out of memory?)' if p.returncode == -9 else '')
    elif 'Sanitizer' in err or 'runtime error:' in err or 'internal error' in err:
        bad = 'sanitizer report or internal error'
    elif p.returncode not in (0, 1, 2, 3, 4):
        bad = f'undocumented exit code {p.returncode}'
    elif p.returncode == 3 and not re.search(r'^(\S+(:\d+:\d+)?: error: |--set .*: error: |netsim: )', err, re.M):
        bad = 'scenario error without a location'
    if bad:
        failures.append(f'{what}: {bad}: {" ".join(args[1:])}\n    {err.strip()[-600:]}')
    return p.returncode, err


def mutate(lines, rng):
    cand = [i for i, l in enumerate(lines) if l.strip() and not l.strip().startswith('#')]
    if not cand:
        return lines
    i = rng.choice(cand)
    l = lines[i]
    kind = rng.choice(['value'] * 4 + ['delete', 'dup', 'indent', 'truncate', 'garbage', 'swap', 'key'])
    if kind == 'value':
        spots = [m.start(1) for m in re.finditer(r':\s+([^,{}\[\]\s#][^,{}\]#]*)', l)]
        if spots:
            s = rng.choice(spots)
            e = s + len(re.match(r'[^,{}\]#\n]*', l[s:]).group(0).rstrip())
            lines[i] = l[:s] + rng.choice(ANY) + l[e:]
            return lines
        kind = 'delete'
    if kind == 'delete':
        del lines[i]
    elif kind == 'dup':
        lines.insert(i, l)
    elif kind == 'indent':
        lines[i] = ' ' * rng.choice([1, 2, 4]) + l if rng.random() < 0.5 else l.lstrip()
    elif kind == 'truncate':
        text = '\n'.join(lines)
        return text[:rng.randrange(len(text))].split('\n')
    elif kind == 'garbage':
        pos = rng.randrange(len(l) + 1)
        lines[i] = l[:pos] + rng.choice(['\t', ':', '- ', '%', '@', '`', '{{', '}}', '&', '*', '|', '>', '!']) + l[pos:]
    elif kind == 'swap':
        j = rng.choice(cand)
        lines[i], lines[j] = lines[j], lines[i]
    else:
        m = re.match(r'(\s*-?\s*)([A-Za-z_][\w.-]*)(\s*:)', l)
        if m:
            k = rng.choice(['x', m.group(2) + 's', m.group(2)[:-1], 'seed', 'duration', 'hosts', 'traffic'])
            lines[i] = m.group(1) + k + l[m.end(2):]
    return lines


def text_cases(rng, tmp):
    for n in range(CASES):
        work = os.path.join(tmp, f'text{n}')
        shutil.copytree(SCEN, os.path.join(work, 'scenarios'))
        f = rng.choice(SCENARIOS)
        target = os.path.join(work, 'scenarios', 'profiles', rng.choice(PROFILES)) if rng.random() < 0.2 else \
            os.path.join(work, 'scenarios', f)
        lines = open(target, encoding='utf-8').read().split('\n')
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            lines = mutate(lines, rng)
        open(target, 'w', encoding='utf-8').write('\n'.join(lines))
        path = os.path.join(work, 'scenarios', f)
        pick = rng.random()
        if pick < 0.1 and 'calibrate:' in open(os.path.join(SCEN, f)).read():
            # a fit of one evaluation per start, its profile written into the case's directory
            args = [NETSIM, 'calibrate', path] + SHORT[:4] + ['--max-evaluations', '1', '--check-seeds', '0', '--out',
                                                            os.path.join(work, 'fit.profile.yaml')]
        elif pick < 0.35:
            args = [NETSIM, 'validate', path]
        else:
            args = [NETSIM, 'run', path] + SHORT + ['-j', '1']
        run(args, work, f'text #{n} ({os.path.basename(target)})')
        shutil.rmtree(work)


def set_cases(rng, tmp):
    keys = scenario_keys()
    for n in range(CASES):
        f, kv = rng.choice(keys)
        sets = []
        for _ in range(rng.choice([1, 1, 2, 3])):
            k, v = rng.choice(kv)
            if k in ('duration', 'interval', 'seeds'):
                continue
            kind = value_kind(v) if rng.random() < 0.6 else None
            sets += ['--set', f'{k}={rng.choice(TYPED[kind] if kind else ANY)}']
        run([NETSIM, 'run', os.path.join(SCEN, f)] + SHORT + sets + ['-j', '1'], tmp, f'set #{n}')


def cli_cases(rng, tmp):
    cmds = ['run', 'validate', 'topo', 'sweep', 'results', 'calibrate', 'bogus', '--version', '--help', '']
    flags = ['--set', '--seed', '--format', '--app-side', '--out', '--trace-tcp', '--trace-queue', '-j', '--profile',
             '--data', '--dot', '--axis', '--seeds', '--shard', '--resume', '--retry-failed', '--force',
             '--emit-slurm', '--shards', '--by', '--metric', '--help', '-x', '--', '--max-evaluations', '--check-seeds']
    vals = ['', '0', '-1', '1', '2', '99999999999', 'abc', 'text', 'json', 'csv', 'pb', 'iperf3', 'iperf3-json',
            'iperf2', 'ping', 'client', 'server', '/dev/null', '/nonexistent/x', 'out', '1/2', '3/2', '0/0', '2/1',
            'a=b', 'seed=3', 'x=1', '=', 'traffic.udp1.rate=1Mbps,2Mbps', os.path.join(SRC, 'README.md'),
            os.path.join(SCEN, 'profiles', 't1-newreno-fit.profile.yaml'), '%s']
    scenarios = [os.path.join(SCEN, f) for f in ('udp-switch-nth.yaml', 'tcp-bulk-nth.yaml', 't1-idle-ping.yaml')]
    for n in range(CASES):
        work = os.path.join(tmp, f'cli{n}')
        os.makedirs(work)
        cmd = rng.choice(cmds)
        args = [NETSIM] + ([cmd] if cmd else [])
        if cmd in ('run', 'validate', 'topo', 'sweep', 'calibrate') and rng.random() < 0.9:
            args.append(rng.choice(scenarios))
        if cmd == 'results' and rng.random() < 0.8:
            args.append(rng.choice(['out', '/nonexistent', SCEN, work]))
        for _ in range(rng.randrange(0, 5)):
            args.append(rng.choice(flags))
            if rng.random() < 0.8:
                args.append(rng.choice(vals))
        if cmd in ('run', 'sweep', 'calibrate'):
            args += ['--set', 'duration=0.05s', '--set', 'interval=0.01s']
        if cmd == 'calibrate':
            args += ['--max-evaluations', '2']
        run(args, work, f'cli #{n}')
        shutil.rmtree(work)


def store_cases(rng, tmp):
    base = os.path.join(tmp, 'sweep0')
    sweep = [NETSIM, 'sweep', os.path.join(SCEN, 'udp-drop-sweep.yaml'), '--out', base, '--set', 'duration=0.05s',
             '--set', 'interval=0.01s']
    if subprocess.run(sweep, capture_output=True).returncode != 0:
        failures.append('store: the reference sweep failed')
        return
    for n in range(CASES):
        d = os.path.join(tmp, f'store{n}')
        shutil.copytree(base, d)
        files = [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs]
        for _ in range(rng.choice([1, 1, 2, 3])):
            f = rng.choice(files)
            if not os.path.isfile(f):
                continue
            data = open(f, 'rb').read()
            kind = rng.choice(['truncate', 'flip', 'delete', 'junk', 'dir', 'empty'])
            if kind == 'truncate':
                open(f, 'wb').write(data[:rng.randrange(len(data) + 1)])
            elif kind == 'flip' and data:
                b = bytearray(data)
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
                open(f, 'wb').write(bytes(b))
            elif kind == 'delete':
                os.remove(f)
            elif kind == 'junk':
                name = f'junk{rng.randrange(9)}' + rng.choice(['', '.pb', '.json', '.tmp'])
                open(os.path.join(os.path.dirname(f), name), 'wb').write(rng.randbytes(rng.randrange(100)))
            elif kind == 'dir':
                os.remove(f)
                os.makedirs(f)
            elif kind == 'empty':
                open(f, 'wb').close()
        run([NETSIM, 'results', d], tmp, f'store #{n} results')
        run([NETSIM, 'results', d, '--format', 'csv'], tmp, f'store #{n} results csv')
        run(sweep[:4] + [d] + sweep[5:] + ['--resume'], tmp, f'store #{n} sweep --resume')
        shutil.rmtree(d)


def main():
    with tempfile.TemporaryDirectory(prefix='netsim-fuzz-') as tmp:
        for name, cases in (('text', text_cases), ('set', set_cases), ('cli', cli_cases), ('store', store_cases)):
            before = len(failures)
            cases(random.Random(f'{SEED}/{name}'), tmp)
            print(f'{name}: {CASES} cases, {len(failures) - before} failed', flush=True)
    for f in failures:
        print('FAIL ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
